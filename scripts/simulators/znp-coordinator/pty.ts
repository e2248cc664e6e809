/**
 * A `socat` PTY pair: the driver opens one end as its serial port, the simulated stick the other. Killing
 * socat is unplugging the stick; starting it again on the same paths is plugging it back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PtyPair {
  /** The path the driver opens (a symlink to /dev/pts/N). */
  readonly stickPath: string;
  /** The path the simulator opens. */
  readonly simPath: string;
  /** socat's process id. */
  readonly pid: number | undefined;
  /** Ends socat: SIGTERM, then SIGKILL if it has not exited within `graceMs` (a stop must never hang). */
  stop(graceMs?: number): Promise<void>;
}

/** `name`: the stick's file name (a /dev/serial/by-id style name for the probe tests). */
export async function startPtyPair(dir: string, name = 'ttyZNP'): Promise<PtyPair> {
  const stickPath = join(dir, name);
  const simPath = join(dir, 'ttySIM');
  const child: ChildProcess = spawn(
    'socat',
    [`pty,raw,echo=0,link=${stickPath}`, `pty,raw,echo=0,link=${simPath}`],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 200 && !(existsSync(stickPath) && existsSync(simPath)); i++) await sleep(10);
  if (!existsSync(stickPath) || !existsSync(simPath)) {
    child.kill('SIGKILL');
    throw new Error('socat did not create the PTY pair (is socat installed?)');
  }
  return {
    stickPath,
    simPath,
    pid: child.pid,
    async stop(graceMs = 2000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
