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
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: live,
          // Most suites wait on sockets, child processes and the disk, not the CPU: one worker more than
          // the two cores keeps both busy (vitest's default would leave one idle on a 2-core machine).
          maxWorkers: 3,
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
