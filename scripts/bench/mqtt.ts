/**
 * `npm run bench:mqtt`: the MQTT path end to end through a real hub (lighting + mqtt-devices, embedded
 * broker on loopback TCP), with real mqtt.js clients as devices. Prints, never asserts:
 *  1. switch → bulb: a zigbee2mqtt wall switch publishes `action` at 200 presses/s; each press's bound
 *     action reaches a zigbee2mqtt bulb as a `…/set` command. p50/p99 from publish to receipt. Measured
 *     twice: with the hub in this process (the switch, the bulb and the clock share its event loop, so
 *     their work and their garbage count as the hub's latency), and with the built hub in its own process
 *     as systemd runs it (`BENCH_MQTT_HUB=process` or `built` for one of them). Each run also prints the
 *     event-loop delay and GC pauses of this process and, for the built hub, its CPU per press
 *     (`BENCH_MQTT_PROF=<dir>` makes the built hub write a CPU profile there; `BENCH_MQTT_BASELINE=<dir>`
 *     adds the built hub of another checkout, e.g. an older commit unpacked with this node_modules linked).
 *  2. capacity: N lights (one zigbee2mqtt bridge client, N bulbs that report back) driven through
 *     PUT /light/state at 10 changes per light per minute; p50/p99 from request to the bulb's receipt,
 *     for N = 100, 500, 1000, and the largest N whose p99 stays within 50 ms.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import mqtt, { type MqttClient } from 'mqtt';
import { startMqttHub } from '../../test/mqtt/hub.ts';
import { PRODUCTION_FLAGS, spawnBuiltHub } from '../lib/spawn-hub.ts';
import { cpuMicros } from './proc-cpu.ts';

const PRESS_RATE = 200;
const PRESS_SECONDS = Number(process.env.BENCH_DURATION_S ?? 5);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_S ?? 6);
const SIZES = (process.env.BENCH_LIGHTS ?? '100,500,1000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const LIMIT_MS = 50;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const fmt = (n: number) => `${n.toFixed(2)} ms`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Paces `total` calls of `fn` at `rate`/s against the clock (no drift from slow iterations). */
async function paced(rate: number, total: number, fn: (i: number) => void): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    else if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    fn(i);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: site API answers are read field by field, as in the tests
type Json = any;

/** What the switch → bulb run needs of a hub, in this process or in its own. */
interface PressHub {
  name: string;
  mqttUrl: string;
  siteid: string;
  /** The hub's process when it is not this one: its CPU per press is read from /proc. */
  pid?: number | undefined;
  site(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  admin(method: string, path: string, body?: unknown): Promise<unknown>;
  credential(username: string, topics: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** The hub of the tests, in this process (what this bench measured until the third round). */
async function inProcessHub(): Promise<PressHub> {
  const h = await startMqttHub(HUB);
  return {
    name: 'hub in this process',
    mqttUrl: h.t.mqttUrl,
    siteid: h.siteid,
    site: (method, route, body) => h.site(method, route, body),
    admin: (method, route, body) => h.t.admin(method, route, body),
    credential: (username, topics) => h.credential(username, topics),
    stop: () => h.stop(),
  };
}

const root = path.resolve(import.meta.dirname, '../..');
const ADMIN_KEY = 'bench-mqtt-admin-key-0123456789abcdef';

/** The built hub as systemd runs it (every plugin, production flags and store window), on a fresh data dir. */
async function builtHub(dir = root, name = 'built hub in its own process'): Promise<PressHub> {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-mqtt-'));
  const prof = process.env.BENCH_MQTT_PROF;
  const hub = await spawnBuiltHub({
    dataDir,
    adminKey: ADMIN_KEY,
    logLevel: 'info',
    until: /\/site\/\S+/,
    dist: path.join(dir, 'dist'),
    ...(prof ? { flags: [...PRODUCTION_FLAGS, '--cpu-prof', `--cpu-prof-dir=${path.resolve(prof)}`] } : {}),
  });
  const adminUrl = hub.find(/admin\s+(http:\S+)/);
  const siteUrl = hub.find(/(http:\S+\/site\/\S+)/);
  const mainUrl = new URL(siteUrl).origin;
  const sitekey = siteUrl.slice(siteUrl.lastIndexOf('/') + 1);
  const json = async (url: string, method: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(url, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const admin = async (method: string, route: string, body?: unknown) => {
    const res = await json(`${adminUrl}${route}`, method, body, { authorization: `Bearer ${ADMIN_KEY}` });
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const sites = (await admin('GET', '/admin/sites')) as
    | Array<{ siteid: string }>
    | { sites: Array<{ siteid: string }> };
  const siteid = (Array.isArray(sites) ? sites : sites.sites)[0]?.siteid ?? '';
  return {
    name,
    mqttUrl: `mqtt://127.0.0.1:${hub.find(/mqtt\s+mqtt:\/\/.*?:(\d+)/)}`,
    siteid,
    pid: hub.child.pid,
    site: (method, route, body) => json(`${mainUrl}/api/site/${sitekey}${route}`, method, body, {}),
    admin,
    async credential(username, topics) {
      const res = (await admin('POST', '/admin/mqtt/credentials', { username, site: siteid, topics })) as {
        password: string;
      };
      return res.password;
    },
    async stop() {
      await hub.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Event-loop delay and GC pauses of this process while `fn` runs. */
async function watched<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; loop: IntervalHistogram; gc: number[] }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const gc: number[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push(e.duration);
  });
  obs.observe({ entryTypes: ['gc'] });
  loop.enable();
  try {
    return { result: await fn(), loop, gc };
  } finally {
    loop.disable();
    obs.disconnect();
  }
}

async function client(h: PressHub, username: string, topics: string[]): Promise<MqttClient> {
  return mqtt.connectAsync(h.mqttUrl, { username, password: await h.credential(username, topics) });
}

async function switchToBulb(h: PressHub): Promise<void> {
  const levels = [26, 51, 77, 102, 128, 153, 179, 204, 230, 255];
  const bulb = await client(h, 'bulb', ['zigbee2mqtt/desk', 'zigbee2mqtt/desk/#']);
  const wall = await client(h, 'wall', ['zigbee2mqtt/wall', 'zigbee2mqtt/wall/#']);
  // A sensor made on the site API is not announced to the driver (no lighting hook): register the device.
  await h.admin('POST', '/admin/mqtt/devices', {
    mqttid: 'zigbee2mqtt:wall',
    site: h.siteid,
    kind: 'sensor',
  });
  const light = (
    await h.site('POST', '/light', {
      name: 'Desk',
      type: 'dimmable',
      vendor: 'mqtt',
      mqttid: 'zigbee2mqtt:desk',
    })
  ).body;
  const sensor = (
    await h.site('POST', '/sensor', {
      name: 'Wall',
      vendor: 'mqtt',
      mqttid: 'zigbee2mqtt:wall',
      type: 'button',
      events: [],
    })
  ).body;
  for (const [i, bri] of levels.entries())
    await h.site('POST', '/sensor/action', {
      _id: sensor._id,
      event: `p${i}`,
      action: { type: 'light', _id: light._id, on: true, bri },
    });
  // One FIFO of press times per event: the command's brightness says which press it answers.
  const pending = levels.map(() => [] as number[]);
  const byLevel = new Map(levels.map((b, i) => [Math.round((b * 254) / 255), i]));
  const latencies: number[] = [];
  let coalesced = 0;
  bulb.on('message', (_t, payload) => {
    const now = performance.now();
    const i = byLevel.get((JSON.parse(payload.toString()) as { brightness: number }).brightness);
    // Lighting coalesces commands to a busy light (latest wins): the command answers the latest press
    // of its level; earlier ones of that level were superseded.
    const list = i === undefined ? [] : pending[i]!;
    const sent = list.pop();
    coalesced += list.length;
    list.length = 0;
    if (sent !== undefined) latencies.push(now - sent);
    bulb.publish('zigbee2mqtt/desk', payload); // report back like the device would
  });
  await bulb.subscribeAsync('zigbee2mqtt/desk/set');
  // Warm up the path, then measure.
  for (let i = 0; i < 20; i++) {
    pending[i % 10]!.push(performance.now());
    wall.publish('zigbee2mqtt/wall', JSON.stringify({ action: `p${i % 10}` }));
    await sleep(10);
  }
  await sleep(200);
  latencies.length = 0;
  coalesced = 0;
  const total = PRESS_RATE * PRESS_SECONDS;
  const cpuBefore = cpuMicros(h.pid);
  const load = loadavg()[0]!.toFixed(1);
  const { loop, gc } = await watched(() =>
    paced(PRESS_RATE, total, (i) => {
      pending[i % 10]!.push(performance.now());
      wall.publish('zigbee2mqtt/wall', JSON.stringify({ action: `p${i % 10}`, linkquality: 120 }));
    }),
  );
  await sleep(500);
  const hubCpu = (cpuMicros(h.pid) - cpuBefore) / total;
  const s = latencies.sort((a, b) => a - b);
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  console.log(
    `switch → bulb, ${h.name}, at ${PRESS_RATE} presses/s for ${PRESS_SECONDS} s (load average ${load}):` +
      ` ${s.length} of ${total} presses reached the bulb (${coalesced} superseded by a later press while the light was busy);` +
      ` p50 ${fmt(pct(s, 50))}, p99 ${fmt(pct(s, 99))}, max ${fmt(s.at(-1) ?? Number.NaN)}`,
  );
  console.log(
    `  this process: event-loop delay p50 ${ms(loop.percentile(50))} ms, p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms;` +
      ` ${gc.length} GC pauses, longest ${fmt(Math.max(0, ...gc))}` +
      (Number.isNaN(hubCpu)
        ? ''
        : `; the hub's CPU ${hubCpu.toFixed(0)} µs per press (switch publish, command, the bulb's report)`),
  );
  await wall.endAsync();
  await bulb.endAsync();
}

async function capacity(n: number): Promise<number> {
  const h = await startMqttHub(HUB);
  try {
    const bridge = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'z2m',
      password: await h.credential('z2m', ['zigbee2mqtt/#']),
    });
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    bridge.on('message', (topic, payload) => {
      const name = topic.slice('zigbee2mqtt/'.length, -'/set'.length);
      const t = sentAt.get(name);
      if (t !== undefined) {
        latencies.push(performance.now() - t);
        sentAt.delete(name);
      }
      bridge.publish(`zigbee2mqtt/${name}`, payload); // the bulb confirms
    });
    await bridge.subscribeAsync('zigbee2mqtt/+/set');
    const ids: string[] = [];
    for (let i = 0; i < n; i += 25) {
      const batch = Array.from({ length: Math.min(25, n - i) }, (_, k) =>
        h.site('POST', '/light', {
          name: `L${i + k}`,
          type: 'dimmable',
          vendor: 'mqtt',
          mqttid: `zigbee2mqtt:bulb${i + k}`,
        }),
      );
      for (const r of await Promise.all(batch)) ids.push(r.body._id);
    }
    const put = (i: number, bri: number) =>
      h.site('PUT', '/light/state', { _id: ids[i % n], on: true, bri }).then((r) => {
        if (r.status !== 200) throw new Error(`PUT /light/state: ${r.status}`);
      });
    for (let i = 0; i < n; i += 50) await Promise.all(ids.slice(i, i + 50).map((_, k) => put(i + k, 1)));
    await sleep(500);
    latencies.length = 0;
    const rate = (n * 10) / 60;
    const total = Math.round(rate * LOAD_SECONDS);
    const inflight: Array<Promise<void>> = [];
    await paced(rate, total, (i) => {
      sentAt.set(`bulb${i % n}`, performance.now());
      inflight.push(put(i, 2 + (i % 250)));
    });
    await Promise.all(inflight);
    await sleep(300);
    const s = latencies.sort((a, b) => a - b);
    const p99 = pct(s, 99);
    console.log(
      `${String(n).padStart(5)} lights, ${rate.toFixed(1)} changes/s for ${LOAD_SECONDS} s: ${s.length} of ${total} commands reached the bulbs; p50 ${fmt(pct(s, 50))}, p99 ${fmt(p99)}`,
    );
    await bridge.endAsync();
    return p99;
  } finally {
    await h.stop();
  }
}

/** The production store default (the test helper's 20 ms window would make every run a write storm). */
const HUB = { log: { level: 'warn' }, store: { coalesceMs: Number(process.env.BENCH_COALESCE_MS ?? 1000) } };

const baselineDir = process.env.BENCH_MQTT_BASELINE;
const pressHubs = (process.env.BENCH_MQTT_HUB ?? `process,built${baselineDir ? ',baseline' : ''}`).split(',');
for (const kind of pressHubs) {
  const hub =
    kind === 'built'
      ? await builtHub()
      : kind === 'baseline' && baselineDir
        ? await builtHub(path.resolve(baselineDir), `built hub of ${baselineDir}`)
        : await inProcessHub();
  try {
    await switchToBulb(hub);
  } finally {
    await hub.stop();
  }
}
let best = 0;
for (const n of SIZES) {
  const p99 = await capacity(n);
  if (p99 <= LIMIT_MS) best = Math.max(best, n);
}
console.log(
  `largest tried light count with p99 ≤ ${LIMIT_MS} ms at 10 changes per light per minute: ${best || 'none'} (tried ${SIZES.join(', ')})`,
);
