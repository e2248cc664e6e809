/**
 * Start-up and idle memory of the built hub, measured from outside as an operator sees them: the process is
 * spawned exactly as systemd runs it (scripts/build.mjs output), "ready" is the moment `/ready` answers 200,
 * and RSS is read from /proc ten seconds after that. The hub's own CPU time up to ready is printed too: on a
 * shared machine it moves far less than the wall clock.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnBuiltHub } from '../lib/spawn-hub.ts';
import { cpuMicros } from './proc-cpu.ts';

export interface StartFigures {
  /** Spawn → `/ready` answers 200, ms. */
  readyMs: number;
  /** The hub's CPU time (user + system, every thread) at that moment, ms. */
  cpuMs: number;
  /** Resident set size `idleS` seconds after ready, MB. */
  rssMb: number;
}

const rssMb = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
};

/** One start of `dist/core/cli/main.js start` on `dataDir`; `env` adds settings (e.g. plugins off). */
export async function startOnce(
  dataDir: string,
  env: Record<string, string> = {},
  idleS = 10,
): Promise<StartFigures> {
  const t0 = performance.now();
  const hub = await spawnBuiltHub({
    dataDir,
    adminKey: 'bench-admin-key-0123456789',
    env,
    until: /main\s+http:\/\/\S+/,
  });
  const child = hub.child;
  const mainUrl = hub.find(/main\s+(http:\/\/\S+)/);
  // The banner is printed once every listener is up; /ready is what a supervisor polls.
  for (;;) {
    const ok = await fetch(`${mainUrl}/ready`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  const cpuMs = cpuMicros(child.pid) / 1000;
  await new Promise((r) => setTimeout(r, idleS * 1000));
  const rss = rssMb(child.pid as number);
  await hub.stop();
  return { readyMs, cpuMs, rssMb: rss };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** First start on an empty data dir, then `restarts` starts on it; medians of the restarts. */
export async function benchStart(env: Record<string, string> = {}, restarts = 3, idleS = 10) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-start-'));
  try {
    const first = await startOnce(dataDir, env, 1);
    const runs: StartFigures[] = [];
    for (let i = 0; i < restarts; i++)
      runs.push(await startOnce(dataDir, env, i === restarts - 1 ? idleS : 1));
    return {
      firstReadyMs: first.readyMs,
      firstCpuMs: first.cpuMs,
      readyMs: median(runs.map((r) => r.readyMs)),
      cpuMs: median(runs.map((r) => r.cpuMs)),
      rssMb: (runs.at(-1) as StartFigures).rssMb,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
