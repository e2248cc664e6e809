/**
 * `npm run bench:lighting`: PUT /light/state throughput next to a bare Koa app (same run, each server in
 * its own child process so the load generator does not share its event loop), WebSocket fan-out latency
 * to 100 subscribers, and sensor event → driver command latency. Loopback only; figures are printed.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import autocannon from 'autocannon';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import WebSocket from 'ws';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import type { DriverFactory, DriverSink } from '../../drivers/lighting/index.ts';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub } from '../../test/helpers/hub.ts';
import { pinLoadGenerator, pinningNote, pinServer } from './pin.ts';
import { cpuMicros } from './proc-cpu.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
const ROUNDS_HTTP = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(3)} ms`;

/** Requests each server answered, warm-up included (to read a CPU profile of it per request). */
const served = new Map<string, number>();

/** One autocannon run; with the server's pid, also the server's CPU per request and how busy it was. */
async function cannon(url: string, bodies: string[], duration: number, pid?: number) {
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    requests: bodies.map((b) => ({
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: b,
    })),
  });
  const cpu = cpuMicros(pid) - cpuBefore;
  served.set(url, (served.get(url) ?? 0) + result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    cpuPerReq: cpu / result.requests.total,
    busy: cpu / (duration * 1e6),
  };
}

/** The baseline: Koa, @koa/router and koa-body with one PUT route that parses JSON and answers. */
async function bareKoa(): Promise<string> {
  const app = new Koa();
  const router = new Router();
  router.put('/light/state', koaBody(), (ctx) => {
    ctx.body = { ok: true, got: (ctx.request as unknown as { body: unknown }).body };
  });
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/light/state`;
}

/** A driver that answers instantly and reports at once; it timestamps every command it gets. */
function instantDriver(onCommand: () => void): { factory: DriverFactory; sink: () => DriverSink } {
  let captured: DriverSink | null = null;
  const factory: DriverFactory = ({ sink }) => {
    captured = sink;
    return {
      async start() {},
      async stop() {},
      async discover() {
        return [];
      },
      async listDevices() {
        return [];
      },
      setState(protocolid, level) {
        onCommand();
        queueMicrotask(() => sink.reportState(protocolid, level));
        return Promise.resolve();
      },
      connection: () => ({ connected: true, since: new Date().toISOString() }),
    };
  };
  return { factory, sink: () => captured! };
}

async function setupHearth() {
  let lighting!: LightingExports;
  const probe: PluginDefinition = {
    name: 'bench-probe',
    version: '0.0.0',
    description: 'bench',
    requires: ['lighting'],
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      lighting = ctx.use('lighting');
      return { stop() {} };
    },
  };
  // Production settings where they matter: warn-level logging and the default 1 s write coalescing.
  const hub = await startTestHub({
    plugins: ['lighting'],
    extraPlugins: [probe],
    config: { log: { level: 'warn' }, store: { coalesceMs: 1000 } },
  });
  const clock = { commandAt: 0n };
  const drv = instantDriver(() => {
    clock.commandAt = process.hrtime.bigint();
  });
  type Created = { siteid: string; sitekey: string };
  const { siteid, sitekey } = (await hub.admin('POST', '/admin/sites', { name: 'Bench' })).body as Created;
  lighting.registerDriverType('instant', drv.factory);
  await lighting.addDriver({ id: 'instant', type: 'instant', site: siteid });
  const api = `${hub.url}/api/site/${sitekey}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(api + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { _id: string };
  };
  const lights = [];
  for (let i = 0; i < 10; i++) {
    lights.push(
      await post('/light', { name: `L${i}`, type: 'dimmable', vendor: 'instant', instantid: `i${i}` }),
    );
  }
  const bodies = lights.flatMap((l, i) => [
    JSON.stringify({ _id: l._id, on: true, bri: 10 + i }),
    JSON.stringify({ _id: l._id, on: false, bri: 0 }),
  ]);
  return { hub, api, post, lights, bodies, drv, clock };
}

function serveInChild(
  mode: 'koa' | 'hearth',
): Promise<{ child: ChildProcess; url: string; bodies: string[] }> {
  // BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it exits (summarise it with
  // scripts/bench/profile-summary.ts).
  const prof = process.env.BENCH_CPU_PROF;
  const execArgv = ['--import', 'tsx', ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])];
  const child = fork(fileURLToPath(import.meta.url), [`serve-${mode}`], { execArgv });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => {
      pinServer(child.pid!);
      resolve({ child, ...(m as { url: string; bodies: string[] }) });
    });
    child.once('exit', (code) => reject(new Error(`bench ${mode} server exited with ${code}`)));
  });
}

async function serve(mode: string): Promise<void> {
  process.on('disconnect', () => process.exit(0));
  if (mode === 'serve-koa') process.send?.({ url: await bareKoa(), bodies: [] });
  else {
    const h = await setupHearth();
    process.send?.({ url: `${h.api}/light/state`, bodies: h.bodies });
  }
}

async function httpThroughput(): Promise<void> {
  const release = pinLoadGenerator();
  const hearthSrv = await serveInChild('hearth');
  const koaSrv = await serveInChild('koa');
  const bodies = hearthSrv.bodies;
  await cannon(koaSrv.url, bodies, 1); // warm-up
  await cannon(hearthSrv.url, bodies, 1);
  // The machine is shared: alternate rounds and report each side's median round.
  const bareRounds = [];
  const hearthRounds = [];
  for (let i = 0; i < ROUNDS_HTTP; i++) {
    bareRounds.push(await cannon(koaSrv.url, bodies, DURATION_S, koaSrv.child.pid));
    hearthRounds.push(await cannon(hearthSrv.url, bodies, DURATION_S, hearthSrv.child.pid));
  }
  hearthSrv.child.disconnect();
  koaSrv.child.disconnect();
  release();
  const median = <T extends { rps: number }>(xs: T[]) =>
    [...xs].sort((a, b) => a.rps - b.rps)[Math.floor(xs.length / 2)]!;
  const bare = median(bareRounds);
  const hearth = median(hearthRounds);
  const rounds = (xs: Array<{ rps: number }>) => xs.map((r) => r.rps.toFixed(0)).join(', ');
  console.log(
    `PUT /light/state, ${CONNECTIONS} connections, instant driver (median of ${ROUNDS_HTTP} x ${DURATION_S} s${pinningNote()})`,
  );
  const line = (r: typeof hearth) =>
    `${r.rps.toFixed(0)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  (${r.errors} errors)  server CPU ${r.cpuPerReq.toFixed(1)} µs/req, ${(100 * r.busy).toFixed(0)}% busy`;
  console.log(`  hearth:   ${line(hearth)}`);
  console.log(`  bare koa: ${line(bare)}`);
  console.log(`  rounds req/s: hearth ${rounds(hearthRounds)}; bare koa ${rounds(bareRounds)}`);
  console.log(`  ratio hearth/bare: ${(hearth.rps / bare.rps).toFixed(2)} (target >= 0.8)`);
  // When the bare server is not saturated, the load generator capped it and the req/s ratio flatters Hearth;
  // the CPU each server spends per request is the figure that does not depend on the load generator.
  console.log(`  server CPU per request, bare/hearth: ${(bare.cpuPerReq / hearth.cpuPerReq).toFixed(2)}`);
  console.log(
    `  requests answered, warm-up included (for profile-phases.ts --requests): hearth ${served.get(hearthSrv.url)}; bare koa ${served.get(koaSrv.url)}`,
  );
}

async function fanoutAndSensors(): Promise<void> {
  const { hub, api, post, lights, drv, clock } = await setupHearth();

  // WebSocket fan-out: one confirmed change → every subscriber; from the device report to receipt. The
  // subscribers run in a child process (monotonic hrtime is shared by processes on one machine).
  const SUBS = 100;
  const CHANGES = 200;
  const subs = fork(
    fileURLToPath(import.meta.url),
    ['subscribers', `${api.replace('http', 'ws')}/ws`, String(SUBS)],
    {
      execArgv: ['--import', 'tsx'],
    },
  );
  const inbox: Array<(m: { bri: number; at: number[] }) => void> = [];
  subs.on('message', (m) => inbox.shift()?.(m as { bri: number; at: number[] }));
  await new Promise<void>((r) => inbox.push(() => r())); // all connected
  const fanout: number[] = [];
  for (let round = 0; round < CHANGES; round++) {
    const bri = 1 + (round % 200);
    const received = new Promise<{ bri: number; at: number[] }>((r) => inbox.push(r));
    const t0 = Number(process.hrtime.bigint());
    drv.sink().reportState('i0', { on: true, bri });
    const { at } = await received;
    for (const t of at) fanout.push((t - t0) / 1e6);
  }
  subs.disconnect();
  fanout.sort((a, b) => a - b);
  console.log(`WebSocket fan-out to ${SUBS} subscribers (${CHANGES} changes, ${fanout.length} deliveries)`);
  console.log(
    `  p50 ${ms(pct(fanout, 50))}  p99 ${ms(pct(fanout, 99))}  max ${ms(fanout.at(-1)!)}  (target p99 <= 20 ms)`,
  );

  // Sensor event → driver command, in process (the action sets a light).
  const sensor = await post('/sensor', {
    name: 'Button',
    vendor: 'instant',
    instantid: 'btn',
    type: 'button',
  });
  const action = { type: 'light', _id: lights[1]!._id, on: true, bri: 77 };
  await post('/sensor/action', { _id: sensor._id, event: '1', action });
  const EVENTS = 5000;
  const latency: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    clock.commandAt = 0n;
    const start = process.hrtime.bigint();
    drv.sink().reportSensorEvent('btn', '1');
    if (clock.commandAt === 0n) throw new Error('the action did not reach the driver synchronously');
    latency.push(Number(clock.commandAt - start) / 1e6);
    await new Promise((r) => setImmediate(r)); // the instant driver settles: the light is idle again
  }
  latency.sort((a, b) => a - b);
  console.log(`Sensor event -> driver command (${EVENTS} events, action: set light)`);
  console.log(
    `  p50 ${ms(pct(latency, 50))}  p99 ${ms(pct(latency, 99))}  max ${ms(latency.at(-1)!)}  (target p99 <= 2 ms)`,
  );

  // Unknown and wrong keys: same answer, and (printed here, not asserted) the same time.
  const wrongKey = `${api.slice(0, -4)}${api.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
  const unknownKey = `${hub.url}/api/site/${'Z'.repeat(24)}`;
  const timing = { wrong: [] as number[], unknown: [] as number[] };
  for (let i = 0; i < 1000; i++) {
    for (const [kind, base] of [
      ['wrong', wrongKey],
      ['unknown', unknownKey],
    ] as const) {
      const t = process.hrtime.bigint();
      const res = await fetch(`${base}/light`);
      await res.arrayBuffer();
      timing[kind].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  timing.wrong.sort((a, b) => a - b);
  timing.unknown.sort((a, b) => a - b);
  console.log('404 for a wrong key vs an unknown key (1000 sequential GET /light each, interleaved)');
  console.log(`  wrong: p50 ${ms(pct(timing.wrong, 50))}  unknown: p50 ${ms(pct(timing.unknown, 50))}`);
  await hub.stop();
}

/** Child: holds the WebSocket subscribers and reports, per change, when each of them received it. */
async function subscribers(url: string, count: number): Promise<void> {
  process.on('disconnect', () => process.exit(0));
  const seen = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url);
    await new Promise((r) => ws.once('message', r)); // hello
    ws.on('message', (raw) => {
      const at = Number(process.hrtime.bigint());
      const msg = JSON.parse(raw.toString()) as { command: string; data: { bri: number } };
      if (msg.command !== 'setLightState') return;
      const list = seen.get(msg.data.bri) ?? [];
      list.push(at);
      seen.set(msg.data.bri, list);
      if (list.length === count) {
        seen.delete(msg.data.bri);
        process.send?.({ bri: msg.data.bri, at: list });
      }
    });
  }
  process.send?.({ bri: -1, at: [] });
}

if (process.argv[2]?.startsWith('serve-')) await serve(process.argv[2]);
else if (process.argv[2] === 'subscribers') await subscribers(process.argv[3]!, Number(process.argv[4]));
else {
  // BENCH_LIGHTING_HTTP_ONLY=1: the PUT /light/state comparison alone (for profiling and repeated rounds).
  await httpThroughput();
  if (process.env.BENCH_LIGHTING_HTTP_ONLY !== '1') await fanoutAndSensors();
}
