/**
 * CPU pinning for the HTTP benchmarks. On a machine with few cores the load generator and the server fight
 * over them, and the faster server loses more. With `taskset`, a server gets the last core and the load
 * generator (this process) the others, the same for every server compared (BENCH_PIN=0 turns it off).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const TASKSET = '/usr/bin/taskset';
export const pinned = process.env.BENCH_PIN !== '0' && existsSync(TASKSET) && availableParallelism() >= 2;
export const serverCore = availableParallelism() - 1;

/** Moves every thread of a server process onto the server core. */
export function pinServer(pid: number): void {
  if (pinned) execFileSync(TASKSET, ['-a', '-cp', String(serverCore), String(pid)], { stdio: 'ignore' });
}

/** Keeps this process off the server core until the returned function gives it every core back. */
export function pinLoadGenerator(): () => void {
  if (!pinned) return () => {};
  const set = (cores: string) =>
    execFileSync(TASKSET, ['-a', '-cp', cores, String(process.pid)], { stdio: 'ignore' });
  set(`0-${serverCore - 1}`);
  return () => set(`0-${serverCore}`);
}

export const pinningNote = (): string =>
  pinned ? `, server on core ${serverCore}, load generator on the others` : '';
