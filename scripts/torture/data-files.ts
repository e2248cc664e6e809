/** Every data file of a data dir must parse: `.json` as one document, `.jsonl` line by line. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function unreadableFiles(dir: string): string[] {
  const bad: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.json')) {
        try {
          JSON.parse(readFileSync(full, 'utf8'));
        } catch (err) {
          bad.push(`${path.relative(dir, full)}: ${(err as Error).message}`);
        }
      } else if (e.name.endsWith('.jsonl')) {
        const lines = readFileSync(full, 'utf8').split('\n').filter(Boolean);
        for (const [i, line] of lines.entries()) {
          try {
            JSON.parse(line);
          } catch {
            bad.push(`${path.relative(dir, full)} line ${i + 1} of ${lines.length} does not parse`);
            break;
          }
        }
      }
    }
  };
  walk(dir);
  return bad;
}

/** Names of the data files (for the figures). */
export function dataFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out;
}
