// `npm run bench:core`: cold start to ready, idle RSS, store throughput and embedded broker throughput
// next to mosquitto. Prints figures; targets are in the README (start ≤ 1 s, RSS ≤ 60 MB, broker ≥ 0.7×).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pluginsDir } from '../../core/cli/boot.ts';
import { discoverPlugins } from '../../core/plugin/discover.ts';
import { spawnBuiltHub } from '../lib/spawn-hub.ts';
import { benchBroker } from './broker.ts';
import { benchStore } from './store.ts';

const root = path.resolve(import.meta.dirname, '../..');

const rssMb = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
};

/** Spawns `hearth start` and measures spawn → banner (every listener up, every plugin started). */
async function startOnce(env: Record<string, string>): Promise<{ ms: number; rss: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-'));
  const t0 = performance.now();
  // Exactly what `npm start` and the systemd unit run (after the build step).
  const hub = await spawnBuiltHub({
    dataDir,
    adminKey: 'bench-admin-key-0123456789',
    env,
    until: /is running/,
  });
  const ms = performance.now() - t0;
  const child = hub.child;
  await new Promise((r) => setTimeout(r, 2000));
  const rss = rssMb(child.pid as number);
  await hub.stop();
  rmSync(dataDir, { recursive: true, force: true });
  return { ms, rss };
}

/**
 * The floor under the idle figure: RSS of a Node process (same flags) that only imports `libraries` and
 * idles, measured like the hub. Nothing of Hearth runs in it.
 */
async function floorRss(libraries: string[]): Promise<number> {
  const code = `${libraries.map((l) => `await import('${l}');`).join('')}setTimeout(() => {}, 60000);`;
  const child = spawn(process.execPath, ['--max-semi-space-size=2', '--input-type=module', '-e', code], {
    cwd: root,
    stdio: 'ignore',
  });
  await new Promise((r) => setTimeout(r, 2500));
  const rss = rssMb(child.pid as number);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return rss;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function startFigures(label: string, env: Record<string, string>): Promise<void> {
  await startOnce(env); // warms the OS file cache, as every start after the first one has it
  const runs: Array<{ ms: number; rss: number }> = [];
  for (let i = 0; i < 5; i++) runs.push(await startOnce(env));
  console.log(
    `${label}: cold start to ready ${Math.round(median(runs.map((r) => r.ms)))} ms (median of 5), idle RSS ${median(runs.map((r) => r.rss))} MB`,
  );
}

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
const plugins = await discoverPlugins(pluginsDir);
const coreAlone = Object.fromEntries(
  plugins.map((p) => [`HEARTH_PLUGINS__${p.name.replace(/-/g, '_').toUpperCase()}__ENABLED`, 'false']),
);
console.log(`Hearth core benchmark on Node ${process.version}, ${new Date().toISOString()}`);
const coreLibraries = ['koa', '@koa/router', 'aedes', 'ws', 'pino', 'lowdb', 'ajv'];
console.log(
  `floor: bare node ${await floorRss([])} MB; node importing ${coreLibraries.join(', ')} (the core's libraries, nothing else) ${await floorRss(coreLibraries)} MB`,
);
await startFigures('core alone', coreAlone);
await startFigures(`core + ${plugins.map((p) => p.name).join(', ')}`, {});

const store = await benchStore();
console.log('store (1,000-record file):');
for (const [k, v] of Object.entries(store)) console.log(`  ${k}: ${Math.round(v)}`);

const broker = await benchBroker();
console.log('broker (QoS 0, one publisher, one subscriber, mqtt.js):');
for (const [k, v] of Object.entries(broker)) console.log(`  ${k}: ${Math.round(v * 100) / 100}`);
