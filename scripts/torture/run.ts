/**
 * `npm run torture [-- part…]`: crash, full-disk, fuzz, MQTT abuse and cross-site probes against the real
 * hub in child processes on loopback. Each part has its own time budget; the table at the end says what
 * was tried, what failed and what was measured. Exits 1 when anything failed.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { running } from './hub.ts';
import { fail, newResult, type PartResult, table } from './report.ts';

interface Part {
  name: string;
  budgetMs: number;
  load: () => Promise<{ run(o: { budgetMs: number }): Promise<PartResult> }>;
}

const parts: Part[] = [
  { name: 'crash', budgetMs: 120_000, load: () => import('./crash.ts') },
  { name: 'disk', budgetMs: 60_000, load: () => import('./disk.ts') },
  { name: 'fuzz', budgetMs: 240_000, load: () => import('./fuzz.ts') },
  { name: 'mqtt', budgetMs: 90_000, load: () => import('./mqtt.ts') },
  { name: 'xsite', budgetMs: 60_000, load: () => import('./xsite.ts') },
];
/** Not in the default run: minutes of emulated arm64 (`npm run smoke:arm64`). */
const optional: Part[] = [{ name: 'arm64', budgetMs: 900_000, load: () => import('./arm64.ts') }];

const wanted = process.argv.slice(2);
const all = [...parts, ...optional];
const unknown = wanted.filter((w) => !all.some((p) => p.name === w));
if (unknown.length > 0) {
  console.error(`unknown part(s): ${unknown.join(', ')}; parts: ${all.map((p) => p.name).join(', ')}`);
  process.exit(2);
}
const selected = wanted.length > 0 ? all.filter((p) => wanted.includes(p.name)) : parts;

// The previous run's data dirs and logs go; this run's stay for a look until the next one.
try {
  rmSync(path.join(tmpdir(), 'hearth-torture'), { recursive: true, force: true });
} catch {
  // A tmpfs left mounted by an interrupted disk part: its folder stays.
}

const results: PartResult[] = [];
const t0 = Date.now();
for (const part of selected) {
  const started = Date.now();
  console.log(`— ${part.name} (budget ${part.budgetMs / 1000} s)`);
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<PartResult>((resolve) => {
    timer = setTimeout(() => {
      const r = newResult(part.name);
      fail(r, 'over budget', `still running after ${(part.budgetMs + 30_000) / 1000} s`);
      resolve(r);
    }, part.budgetMs + 30_000);
  });
  let result: PartResult;
  try {
    const mod = await part.load();
    result = await Promise.race([mod.run({ budgetMs: part.budgetMs }), overrun]);
  } catch (err) {
    result = newResult(part.name);
    fail(result, 'part crashed', (err as Error).stack ?? String(err));
  }
  clearTimeout(timer);
  for (const child of running) child.kill('SIGKILL');
  result.figures.push(`${((Date.now() - started) / 1000).toFixed(0)} s`);
  results.push(result);
  console.log(table([result]));
  for (const f of result.findings) console.log(`  ✗ ${f}`);
}

console.log(`\nTorture, ${((Date.now() - t0) / 1000).toFixed(0)} s in all\n`);
console.log(table(results));
const findings = results.flatMap((r) => r.findings.map((f) => `${r.area}: ${f}`));
if (findings.length > 0) {
  console.log('\nFindings:');
  for (const f of findings) console.log(`  ✗ ${f}`);
}
const failed = results.reduce((n, r) => n + r.failures, 0);
console.log(`\n${results.reduce((n, r) => n + r.trials, 0)} trials, ${failed} failures`);
process.exit(failed > 0 ? 1 : 0);
