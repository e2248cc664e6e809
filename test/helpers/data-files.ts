import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file under a live data directory with its text. The store renames its temp files while a test
 * reads the directory, so a file listed but gone before it is read is skipped: what it held is in the
 * file it was renamed to, and the scan starts over until it sees a directory that holds still.
 */
export function dataFileTexts(dir: string): Array<{ name: string; text: string }> {
  for (let attempt = 0; ; attempt++) {
    const files: Array<{ name: string; text: string }> = [];
    let moved = false;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const name = path.relative(dir, path.join(entry.parentPath, entry.name));
      try {
        files.push({ name, text: readFileSync(path.join(dir, name), 'latin1') });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 20) throw err;
        moved = true;
      }
    }
    if (!moved) return files;
  }
}
