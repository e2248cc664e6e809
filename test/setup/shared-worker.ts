/**
 * Set up before every file of the `shared` project, whose files run one after another in the same worker
 * process (vitest.config.ts, `isolate: false`): what a file changed for the whole process goes back once
 * the file is done, so the next file starts as it would in a fresh process.
 */
import { afterAll, vi } from 'vitest';

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
