import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Test files whose assertions measure wall-clock latency on purpose. They run on their own, one file at a
 * time, after everything else has finished, so no other test's load skews what they measure.
 */
const live = [
  'test/lighting/latency.test.ts',
  'test/lighting/key-timing.test.ts',
  'test/matter/latency.test.ts',
];

/**
 * Test files that keep a fresh process each: `vi.mock` of a module the hub's sources import (a shared
 * worker has those sources loaded already, unmocked), and every file that drives chromium (its helpers
 * belong to the browser suites and assume a process of their own).
 */
const mocking = ['test/core/backup-staging-race.test.ts'];
const browser = filesImporting('test', /helpers\/(browser|axe|console)\.ts'/);
const isolated = [...mocking, ...browser];

/** Test files under `dir` whose source matches `pattern` (read once when the config loads). */
function filesImporting(dir: string, pattern: RegExp): string[] {
  const root = import.meta.dirname;
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f).split(path.sep).join('/'))
    .filter((f) => pattern.test(readFileSync(path.join(root, f), 'utf8')));
}

/**
 * Most suites wait on sockets, child processes and the disk, not the CPU: one worker more than the two
 * cores keeps both busy (vitest's default would leave one idle on a 2-core machine). Four and five were
 * measured on the zigbee files (docs/benchmarks.md, "Runner and non-browser files, third round"): each
 * worker more cost CPU (it loads vitest and the sources again) and the run took no less time; it would
 * also run one more hub or chromium at once, which is what times out under load. HEARTH_TEST_WORKERS
 * overrides the count for such a measurement.
 */
const WORKERS = Number(process.env.HEARTH_TEST_WORKERS ?? 3);

export default defineConfig({
  test: {
    // A guard against hangs, not a speed target: browser suites on a loaded 2-core CI machine need room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a state (a list reloaded, a message delivered) and returns as soon as it holds;
    // its 1 s default is shorter than a loaded 2-core machine sometimes needs.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // A folder for the run's build, made on first use by a test that starts a child (test/helpers/built.ts).
    globalSetup: ['test/setup/build-dir.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...live, ...isolated],
          // Files run one after another in the same worker process and share its module cache: the hub's
          // sources are loaded once per worker, not once per file (the import step was a third of the
          // summed file time). test/setup/shared-worker.ts puts back what a file changed process-wide.
          isolate: false,
          setupFiles: ['test/setup/shared-worker.ts'],
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: isolated,
          // The same workers as 'shared' (vitest needs one count for projects of one group), a fresh process per file.
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'live',
          include: live,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
