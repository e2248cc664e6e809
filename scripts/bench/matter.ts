// `npm run bench:matter`: what the Matter bridge costs. A site with 50 lights (the virtual driver;
// BENCH_MATTER_LIGHTS changes the number); start to ready (wall clock and the hub's own CPU time, which a
// loaded machine does not distort), idle RSS and idle CPU of `hearth start` (the built dist/, the service's
// flags) with the matter plugin off and on (its bridge listening, not commissioned). Loopback only: the
// bridge listens on ::1 and announces on `lo`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { cpuMicros } from './proc-cpu.ts';

const root = path.resolve(import.meta.dirname, '../..');
const rssMb = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
};
/** `BENCH_MATTER_LIGHTS=0` separates what matter.js costs by itself from what each bridged light adds. */
const LIGHTS = Number(process.env.BENCH_MATTER_LIGHTS ?? 50);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function env(dataDir: string, matter: boolean): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HEARTH_DATA_DIR: dataDir,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_PORT: '0',
    HEARTH_ADMIN_PORT: '0',
    HEARTH_MQTT_PORT: '0',
    HEARTH_LOG_LEVEL: 'warn',
    HEARTH_ADMIN_KEY: 'bench-admin-key-0123456789',
    HEARTH_PLUGINS__LIGHTING__DRIVERS: '[{"id":"demo","type":"virtual","site":"Home"}]',
    HEARTH_PLUGINS__MATTER__ENABLED: String(matter),
    HEARTH_PLUGINS__MATTER__PORT: '0',
    HEARTH_PLUGINS__MATTER__LISTEN: '::1',
    HEARTH_PLUGINS__MATTER__MDNS_INTERFACE: 'lo',
  };
}

async function start(dataDir: string, matter: boolean) {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=2', '--max-old-space-size=128', 'dist/core/cli/main.js', 'start'],
    { cwd: root, env: env(dataDir, matter), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  let cpuMs = 0;
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('is running')) {
        // CPU time (user + system, every thread) to ready: what a loaded machine does not distort.
        cpuMs = cpuMicros(child.pid) / 1000;
        resolve(performance.now() - t0);
      }
    });
    child.once('exit', (code) => reject(new Error(`hub exited (${code}) before ready:\n${out}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  return { child, ms, cpuMs, output: () => out, stop };
}

const portOf = (out: string, listener: string): string => {
  const port = new RegExp(`${listener}\\s+\\w+://[^:\\s]+:(\\d+)`).exec(out)?.[1];
  if (!port) throw new Error(`no ${listener} listener in:\n${out}`);
  return `http://127.0.0.1:${port}`;
};

/** A site "Home" (made at first start) whose key comes from rotating it, and its lights. */
async function seed(dataDir: string): Promise<void> {
  const hub = await start(dataDir, false);
  await new Promise((r) => setTimeout(r, 500)); // the listener lines follow the banner
  const main = portOf(hub.output(), 'main');
  const admin = portOf(hub.output(), 'admin');
  const auth = { authorization: 'Bearer bench-admin-key-0123456789' };
  const sites = (await (await fetch(`${admin}/admin/sites`, { headers: auth })).json()) as Array<{
    siteid: string;
  }>;
  const rotated = await fetch(`${admin}/admin/sites/${sites[0]?.siteid}/rotate-key`, {
    method: 'POST',
    headers: auth,
  });
  const key = ((await rotated.json()) as { sitekey: string }).sitekey;
  for (let i = 0; i < LIGHTS; i++) {
    const res = await fetch(`${main}/api/site/${key}/light`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Light ${i + 1}`,
        type: 'dimmable',
        vendor: 'virtual',
        virtualid: `l${i}`,
      }),
    });
    if (res.status !== 201) throw new Error(`light ${i}: ${res.status} ${await res.text()}`);
  }
  await hub.stop();
}

async function figures(dataDir: string, matter: boolean): Promise<string> {
  await (await start(dataDir, matter)).stop(); // warms the file cache (and, on, makes the node state)
  const runs: Array<{ ms: number; cpuMs: number; idleCpuMs: number; rss: number; stopMs: number }> = [];
  for (let i = 0; i < 3; i++) {
    const hub = await start(dataDir, matter);
    const pid = hub.child.pid as number;
    await new Promise((r) => setTimeout(r, 3000));
    const rss = rssMb(pid);
    // CPU spent while idle, per second, over the next 10 s: timers, mDNS, the store; no controller.
    const idleFrom = cpuMicros(pid);
    await new Promise((r) => setTimeout(r, 10_000));
    const idleCpuMs = (cpuMicros(pid) - idleFrom) / 1000 / 10;
    const t = performance.now();
    await hub.stop();
    runs.push({ ms: hub.ms, cpuMs: hub.cpuMs, idleCpuMs, rss, stopMs: performance.now() - t });
  }
  const m = (k: keyof (typeof runs)[number]) => median(runs.map((r) => r[k]));
  return `matter ${matter ? 'on ' : 'off'}: start to ready ${Math.round(m('ms'))} ms wall, ${Math.round(m('cpuMs'))} ms CPU; idle RSS ${m('rss')} MB, idle CPU ${m('idleCpuMs').toFixed(1)} ms/s; stop ${Math.round(m('stopMs'))} ms (median of 3, ${LIGHTS} lights; load average ${loadavg()[0]?.toFixed(1)})`;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-matter-'));
try {
  await seed(dataDir);
  console.log(await figures(dataDir, false));
  console.log(await figures(dataDir, true));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
