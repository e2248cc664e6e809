// `npm run bench:matter`: what the Matter bridge costs. A site with 50 lights (the virtual driver); cold
// start to ready and idle RSS of `hearth start` (the built dist/, the service's flags) with the matter plugin
// off and on (its bridge listening, commissioned or not). Loopback only: the bridge listens on ::1 and
// announces on `lo`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const rssMb = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
};
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
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('is running')) resolve(performance.now() - t0);
    });
    child.once('exit', (code) => reject(new Error(`hub exited (${code}) before ready:\n${out}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  return { child, ms, output: () => out, stop };
}

const portOf = (out: string, listener: string): string => {
  const port = new RegExp(`${listener}\\s+\\w+://[^:\\s]+:(\\d+)`).exec(out)?.[1];
  if (!port) throw new Error(`no ${listener} listener in:\n${out}`);
  return `http://127.0.0.1:${port}`;
};

/** A site "Home" (made at first start) whose key comes from rotating it, and 50 lights on it. */
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
  for (let i = 0; i < 50; i++) {
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
  const runs: Array<{ ms: number; rss: number; stopMs: number }> = [];
  for (let i = 0; i < 3; i++) {
    const hub = await start(dataDir, matter);
    await new Promise((r) => setTimeout(r, 3000));
    const rss = rssMb(hub.child.pid as number);
    const t = performance.now();
    await hub.stop();
    runs.push({ ms: hub.ms, rss, stopMs: performance.now() - t });
  }
  return `matter ${matter ? 'on ' : 'off'}: start to ready ${Math.round(median(runs.map((r) => r.ms)))} ms, idle RSS ${median(runs.map((r) => r.rss))} MB, stop ${Math.round(median(runs.map((r) => r.stopMs)))} ms (median of 3, 50 lights)`;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-matter-'));
try {
  await seed(dataDir);
  console.log(await figures(dataDir, false));
  console.log(await figures(dataDir, true));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
