// `npm run bench:fuzz-memory [-- N]`: memory of a hub (every plugin) before and after rounds of N malformed
// requests (default 5,000) on its loopback listeners, measured twice:
// 1. what the heap holds: heap and RSS after a full garbage collection (tsx runner, --expose-gc);
// 2. what the OS sees: RSS of the built hub (`dist/`, as systemd runs it) at debug log level, with the
//    production V8 flags and without the old-space cap, to show what the cap buys.
// Bounded: loopback only, 16 requests in flight, every request times out after 5 s.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { PRODUCTION_FLAGS, spawnBuiltHub } from '../lib/spawn-hub.ts';

const root = path.resolve(import.meta.dirname, '../..');
const N = Number(process.argv[2] ?? 5000);
const CONCURRENCY = 16;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

function startHub(dataDir: string) {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--max-semi-space-size=2', '--import', 'tsx', 'scripts/bench/fuzz-memory-hub.ts'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HEARTH_DATA_DIR: dataDir,
        HEARTH_HOST: '127.0.0.1',
        HEARTH_PORT: '0',
        HEARTH_ADMIN_PORT: '0',
        HEARTH_MQTT_PORT: '0',
        HEARTH_LOG_LEVEL: process.env.HEARTH_LOG_LEVEL ?? 'info',
        HEARTH_ADMIN_KEY: 'bench-admin-key-0123456789',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    },
  );
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    // The hub's own log lines go to stdout too: only the runner's answers carry `urls` or `rss`.
    if (!line.startsWith('{"urls"') && !line.startsWith('{"rss"')) return;
    const w = waiters.shift();
    if (w) w(line);
    else lines.push(line);
  });
  const next = () =>
    new Promise<string>((resolve) => {
      const l = lines.shift();
      if (l !== undefined) resolve(l);
      else waiters.push(resolve);
    });
  return {
    child,
    urls: next().then((l) => (JSON.parse(l) as { urls: Record<string, string> }).urls),
    /** With `collect`, after a full garbage collection (what is held); without, what the OS sees now. */
    memory: async (collect = true): Promise<Memory> => {
      child.stdin.write(collect ? 'gc\n' : 'mem\n');
      return JSON.parse(await next()) as Memory;
    },
  };
}

const PROTO = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];
const PATHS = [
  '/api/site/KEY/light',
  '/api/site/KEY/light/state',
  '/api/site/KEY/scene',
  '/site/KEY',
  '/admin/sites/ID',
  '/admin/clients/ID',
  '/admin/users/ID',
  '/admin/resources/ID',
  '/admin/mqtt/devices/ID',
  '/v2/translate',
  '/v2/admin/developer-keys/ID',
  '/oauth2/token',
  '/oauth2/authorize',
  '/.well-known/oauth-authorization-server',
  '/ready',
];
const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length] as T;

/** The i-th malformed request: prototype names, long and odd paths, broken bodies and encodings. */
function request(
  i: number,
  base: string,
): { url: URL; method: string; headers: Record<string, string>; body?: Buffer } {
  const id = i % 3 === 0 ? pick(PROTO, i) : `${pick(PROTO, i)}-${i}-${'x'.repeat(i % 4 === 0 ? 8000 : 8)}`;
  const p = pick(PATHS, i).replace('KEY', encodeURIComponent(id)).replace('ID', encodeURIComponent(id));
  const url = new URL(`${p}?q${i}=${'%E0%A4%A'.repeat(i % 5)}&${pick(PROTO, i + 1)}=1`, base);
  const method = pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], i);
  switch (i % 6) {
    case 0:
      return { url, method, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":') };
    case 1:
      return {
        url,
        method,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({ [pick(PROTO, i)]: { [pick(PROTO, i + 2)]: i }, name: 'x'.repeat(i % 500) }),
        ),
      };
    case 2:
      return {
        url,
        method,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: Buffer.from('not gzip at all'),
      };
    case 3:
      return {
        url,
        method,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
        body: gzipSync(`${pick(PROTO, i)}=1&a[b][c]=${'y'.repeat(i % 300)}`),
      };
    case 4:
      return {
        url,
        method,
        headers: { 'content-type': 'text/plain; charset=bogus' },
        body: Buffer.from([0xff, 0xfe, 0x00]),
      };
    default:
      return { url, method, headers: { authorization: `Bearer ${id}`, cookie: `${pick(PROTO, i)}=1` } };
  }
}

function send(r: ReturnType<typeof request>): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      r.url,
      { method: r.method, headers: r.headers, agent: false, timeout: 5000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(r.body);
  });
}

/** A request line Node's HTTP parser itself refuses (answered 400 before any middleware). */
function sendRaw(port: number, i: number): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.end(`GET /${'\u0001'.repeat(i % 4)}bad path HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`);
    });
    s.setTimeout(5000, () => s.destroy());
    s.on('data', () => {});
    s.on('close', () => resolve());
    s.on('error', () => resolve());
  });
}

async function fuzz(urls: string[], count: number, statuses: Map<number, number>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const base = pick(urls, i);
      if (i % 50 === 49) await sendRaw(Number(new URL(base).port), i);
      else {
        const status = await send(request(i, base));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

const rssOf = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** Starts `dist/core/cli/main.js start` with `flags`; resolves the listener URLs from its banner. */
async function distRss(flags: string[], rounds: number): Promise<number[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-fuzzmem-'));
  const hub = await spawnBuiltHub({
    dataDir,
    flags,
    logLevel: 'debug',
    adminKey: 'bench-admin-key-0123456789',
    stderr: 'ignore',
  });
  const child = hub.child;
  try {
    const urls = [hub.find(/main\s+(http:\/\/\S+)/), hub.find(/admin\s+(http:\/\/\S+)/)];
    const statuses = new Map<number, number>();
    await fuzz(urls, 500, statuses);
    const figures = [rssOf(child.pid as number)];
    for (let r = 0; r < rounds; r++) {
      await fuzz(urls, N, statuses);
      figures.push(rssOf(child.pid as number));
    }
    return figures;
  } finally {
    await hub.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-fuzzmem-'));
  const hub = startHub(dataDir);
  try {
    const urls = Object.values(await hub.urls).filter((u) => u.startsWith('http'));
    const statuses = new Map<number, number>();
    // A first round warms every code path (lazy modules, JIT, caches that fill once).
    await fuzz(urls, 500, statuses);
    const before = await hub.memory();
    await fuzz(urls, N, statuses);
    const afterNoGc = await hub.memory(false);
    const after = await hub.memory();
    await fuzz(urls, N, statuses);
    const againNoGc = await hub.memory(false);
    const again = await hub.memory();
    const row = (name: string, m: Memory) =>
      `${name.padEnd(22)} ${mb(m.rss).padStart(8)} ${mb(m.heapUsed).padStart(8)} ${mb(m.external).padStart(8)} ${mb(m.arrayBuffers).padStart(8)}`;
    console.log(
      `hub memory after a full GC, ${N.toLocaleString('en')} malformed requests per round (${urls.length} listeners)`,
    );
    console.log(
      `${''.padEnd(22)} ${'RSS MB'.padStart(8)} ${'heap MB'.padStart(8)} ${'ext MB'.padStart(8)} ${'bufs MB'.padStart(8)}`,
    );
    console.log(row('after warm-up', before));
    console.log(row(`after ${N}, no GC`, afterNoGc));
    console.log(row(`after ${N}`, after));
    console.log(row(`after ${2 * N}, no GC`, againNoGc));
    console.log(row(`after ${2 * N}`, again));
    console.log(
      `heap growth: ${mb(after.heapUsed - before.heapUsed)} MB in round 1, ${mb(again.heapUsed - after.heapUsed)} MB in round 2`,
    );
    const st = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`);
    console.log(`statuses: ${st.join(' ')}`);
    if ([...statuses.keys()].some((s) => s >= 500)) console.log('WARNING: 5xx answers seen');
  } finally {
    hub.child.stdin.write('stop\n');
    await new Promise((r) => hub.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }

  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'ignore' });
  const rounds = 4;
  console.log(`\nRSS MB of the built hub at debug level, no forced GC, after warm-up and each round of ${N}`);
  for (const flags of [['--max-semi-space-size=2'], PRODUCTION_FLAGS]) {
    const figures = await distRss(flags, rounds);
    console.log(`${flags.join(' ').padEnd(50)} ${figures.map((f) => mb(f).padStart(7)).join('')}`);
  }
}

await main();
