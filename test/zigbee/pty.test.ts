/**
 * The simulated stick's socat PTY pair: stopping it must end even when socat does not act on SIGTERM (a
 * stopped or stuck process); a test's clean-up that waits on it forever hangs the whole file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startPtyPair } from '../../scripts/simulators/znp-coordinator/pty.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('a socat that ignores SIGTERM does not hang stop: it is killed after the grace period', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-pty-'));
  dirs.push(dir);
  const pair = await startPtyPair(dir);
  const pid = pair.pid as number;
  expect(alive(pid)).toBe(true);
  // A stopped process keeps SIGTERM pending: only SIGKILL ends it.
  process.kill(pid, 'SIGSTOP');
  await pair.stop(50);
  expect(alive(pid)).toBe(false);
});

it('a socat that has already exited stops at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-pty-'));
  dirs.push(dir);
  const pair = await startPtyPair(dir);
  await pair.stop();
  await pair.stop();
  expect(alive(pair.pid as number)).toBe(false);
});
