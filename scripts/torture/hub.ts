/** Starts the real hub in a child process on loopback (every port 0) and drives it for the torture parts. */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteInfo } from '../../core/http/listener.ts';
import { type Answer, request } from './http.ts';

const child = fileURLToPath(new URL('./hub-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every hub child still running, so the runner can kill them when a part overruns its budget. */
export const running = new Set<ChildProcess>();

/** A fresh folder for one part's data dirs and logs. */
export function workDir(name: string): string {
  const base = path.join(tmpdir(), 'hearth-torture');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(path.join(base, `${name}-`));
}

export interface HubOptions {
  dataDir: string;
  /** Config file contents merged over the loopback/port-0 base. */
  config?: Record<string, unknown>;
  adminKey?: string;
  /** Where the hub's stdout/stderr go (appended). */
  logFile: string;
}

export interface HubProcess {
  urls: Record<string, string>;
  mqttPort: number;
  routes: Record<string, RouteInfo[]>;
  adminKey: string;
  dataDir: string;
  pid: number;
  proc: ChildProcess;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** Admin API with the admin key. */
  admin(method: string, p: string, body?: unknown): Promise<Answer>;
  /** Any listener: `call('main', 'GET', '/ready')`. */
  call(
    listener: string,
    method: string,
    p: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  /** RSS and heap after two full GCs in the hub. */
  mem(): Promise<{ rss: number; heapUsed: number; heapTotal: number; external: number }>;
  kill9(): Promise<void>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startHub(opts: HubOptions): Promise<HubProcess> {
  const adminKey = opts.adminKey ?? `torture-admin-${randomBytes(12).toString('hex')}`;
  const configFile = `${opts.logFile}.config.json`;
  const base = {
    dataDir: opts.dataDir,
    host: '127.0.0.1',
    log: { level: 'warn' },
    http: { main: { port: 0 }, admin: { port: 0 } },
    mqtt: { port: 0 },
    // A fixed issuer: with port 0 the listener URL changes at every restart, and with it every token.
    plugins: { auth: { port: 0, issuer: 'http://127.0.0.1:9000' }, lighting: { createHomeSite: false } },
  };
  writeFileSync(configFile, JSON.stringify(merge(base, opts.config ?? {})));
  const proc = fork(child, [], {
    cwd: root,
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { PATH: process.env.PATH ?? '', HEARTH_CONFIG: configFile, HEARTH_ADMIN_KEY: adminKey },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(proc);
  const log = (c: Buffer) => appendFileSync(opts.logFile, c);
  proc.stdout?.on('data', log);
  proc.stderr?.on('data', log);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    }),
  );
  const ready = await new Promise<{
    urls: Record<string, string>;
    mqttPort: number;
    routes: Record<string, RouteInfo[]>;
  }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`hub did not start in 60 s (log: ${opts.logFile})`)),
      60_000,
    );
    proc.on('message', (m: { type?: string }) => {
      if (m?.type !== 'ready') return;
      clearTimeout(timer);
      resolve(m as never);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`hub exited before ready (${code ?? signal}); log: ${opts.logFile}`));
    });
  });
  const self: HubProcess = {
    ...ready,
    adminKey,
    dataDir: opts.dataDir,
    pid: proc.pid as number,
    proc,
    exited,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    admin: (method, p, body) =>
      request(`${ready.urls.admin}${p}`, {
        method,
        json: body,
        headers: { authorization: `Bearer ${adminKey}` },
      }),
    call: (listener, method, p, body, headers) => {
      const base = ready.urls[listener];
      if (!base) throw new Error(`no listener ${listener}`);
      return request(`${base}${p}`, { method, json: body, headers: headers ?? {} });
    },
    mem: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('memory probe timed out')), 30_000);
        const on = (m: {
          type?: string;
          rss: number;
          heapUsed: number;
          heapTotal: number;
          external: number;
        }) => {
          if (m?.type !== 'mem') return;
          clearTimeout(timer);
          proc.off('message', on);
          resolve({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external });
        };
        proc.on('message', on);
        proc.send({ type: 'mem' });
      }),
    async kill9() {
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (self.alive()) proc.kill('SIGTERM');
      return exited;
    },
  };
  return self;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
function merge(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b))
    out[k] = isObject(out[k]) && isObject(v) ? merge(out[k] as Json, v) : v;
  return out;
}
