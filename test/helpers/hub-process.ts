import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { built } from './built.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** A hub process just spawned: what it prints, and promises for its start-up and its exit. */
export interface SpawnedHub {
  child: ChildProcess;
  dataDir: string;
  /** Resolves once the hub is ready; rejects (with its output) if it exits first. */
  ready: Promise<void>;
  /** Resolves on exit with the exit code and when it happened (Date.now()). */
  exited: Promise<{ code: number | null; at: number }>;
  /** Resolves once the hub has written `word` `times` times (stdout and stderr). */
  said(word: string, times?: number): Promise<void>;
  output(): string;
}

/**
 * Spawns test/core/fixtures/run-hub.ts (the fixture plugins, started as `hearth start` does) on `dataDir`,
 * every port ephemeral, from this run's build (plain JavaScript: under tsx each start cost 2.5 s of CPU
 * more). `stdout`: an fd for the child's stdout (closed here once the child has it); by default a pipe
 * that is read and collected.
 */
export async function spawnHub(
  dataDir: string,
  env: Record<string, string> = {},
  stdout?: number,
): Promise<SpawnedHub> {
  const child = spawn(process.execPath, [await built('test/core/fixtures/run-hub.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HOST: '127.0.0.1',
      HEARTH_PORT: '0',
      HEARTH_ADMIN_PORT: '0',
      HEARTH_MQTT_PORT: '0',
      ...env,
    },
    stdio: ['ignore', stdout ?? 'pipe', 'pipe'],
  });
  if (stdout !== undefined) closeSync(stdout);
  let out = '';
  const waiting: Array<{ word: string; times: number; resolve: () => void }> = [];
  const count = (word: string) => out.split(word).length - 1;
  const collect = (c: Buffer) => {
    out += c.toString();
    for (const w of waiting.splice(0)) {
      if (count(w.word) >= w.times) w.resolve();
      else waiting.push(w);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const said = (word: string, times = 1) =>
    new Promise<void>((resolve) => {
      if (count(word) >= times) resolve();
      else waiting.push({ word, times, resolve });
    });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  const ready = Promise.race([
    said('READY-FOR-TEST'),
    exited.then(({ code }) => {
      throw new Error(`hub exited early (${code}): ${out}`);
    }),
  ]);
  // A test that never waits for `ready` must not see an unhandled rejection when the hub exits.
  ready.catch(() => {});
  return { child, dataDir, ready, exited, said, output: () => out };
}

export interface HubProcess {
  child: ChildProcess;
  adminUrl: string;
  output(): string;
  /** SIGTERM, resolved on exit. */
  stop(): Promise<void>;
  /** SIGKILL, resolved on exit. */
  kill(): Promise<void>;
}

/** A real hub process (test/core/fixtures/run-hub.ts) on `dataDir`, resolved once it is ready. */
export async function startHubProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<HubProcess> {
  const hub = await spawnHub(dataDir, env);
  await hub.ready;
  const run = JSON.parse(readFileSync(path.join(dataDir, 'run', 'control.json'), 'utf8')) as {
    adminUrl: string;
  };
  return {
    child: hub.child,
    adminUrl: run.adminUrl,
    output: hub.output,
    async stop() {
      hub.child.kill('SIGTERM');
      await hub.exited;
    },
    async kill() {
      hub.child.kill('SIGKILL');
      await hub.exited;
    },
  };
}
