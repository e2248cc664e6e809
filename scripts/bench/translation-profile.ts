/**
 * `npm run bench:translation-profile`: where the hub's CPU goes per `/v2/translate` request at one client
 * (the figure `bench:translation` reports), by phase of the request. The same peers as that bench (loopback
 * upstream, load generator, each in its own process); the hub runs here, so a V8 CPU profile of this
 * process taken during the measured run is the hub's work and nothing else.
 *
 * Prints: CPU per request (this process, every thread) without the profiler, the wall time and CPU of each
 * phase of a request (received, key checked, upstream request sent, upstream answer, response written) for
 * the hub and the bare proxy, and the profile's samples per request by phase. Writes the profile (open it in
 * Chrome DevTools) to `BENCH_PROFILE_OUT` (default: a temp file, named in the output). `BENCH_CLIENTS=20`
 * runs the alternating rounds at 20 clients (CPU per request when requests overlap).
 */
import { spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { DeveloperKeys } from '../../plugins/translation/accounting/developer-keys.ts';
import { startTestHub } from '../../test/helpers/hub.ts';
import { bareProxy, instantUpstream, startLoader } from './translation-peers.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
/** Clients of the alternating rounds (the phases and the profile are always taken at one client). */
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
const OUT =
  process.env.BENCH_PROFILE_OUT ?? path.join(tmpdir(), `hearth-translate-${process.pid}.cpuprofile`);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The phase a sample belongs to: the innermost frame of Hearth's own code or of a package decides (node's
 * internals called from there count for it); samples with no such frame are node's own (HTTP parsing on
 * socket data, timers) or V8's (GC, "(program)").
 */
const PHASES: Array<[RegExp, string]> = [
  [/plugins\/translation\/request\//, 'body read + parse + validation'],
  [/plugins\/translation\/routes\/client-auth|accounting\/developer-keys/, 'key lookup (hash)'],
  [/plugins\/translation\/accounting\/usage-ledger/, 'usage ledger'],
  [/plugins\/translation\/translate-service|cache\.ts|shared-call|cancellation/, 'translate service'],
  [/plugins\/translation\/engines\/http-client/, 'upstream HTTP client'],
  [/plugins\/translation\/engines\//, 'engine chain + DeepL engine'],
  [/plugins\/translation\/(lean|routes)\//, 'translation route'],
  [/plugins\/translation\//, 'translation (other)'],
  [/core\/http\/|core\/metrics\//, 'hub HTTP frame, dispatch, metrics'],
  [/core\/(log|store)\/|node_modules\/pino/, 'logging + store'],
  [
    /node_modules\/(koa|@koa|koa-compose|on-finished|statuses|content-type|type-is|mime|http-errors|delegates|accepts|cookies|vary|only|encodeurl|escape-html|destroy|fresh)/,
    'Koa + router',
  ],
  [/node_modules\//, 'other packages'],
  [/core\//, 'hub core (other)'],
];

function phaseOf(stack: ProfileNode[]): string {
  for (let i = stack.length - 1; i >= 0; i--) {
    const url = stack[i]?.callFrame.url ?? '';
    if (!url || url.startsWith('node:')) continue;
    for (const [re, phase] of PHASES) if (re.test(url)) return phase;
    if (url.includes('/scripts/') || url.includes('/test/')) return 'bench harness';
  }
  const leaf = stack.at(-1)?.callFrame;
  if (!leaf) return '(none)';
  if (leaf.url.startsWith('node:')) {
    // The outermost node module below the event loop: what node was doing on its own.
    const outer = stack.find((n) => n.callFrame.url.startsWith('node:'))?.callFrame.url ?? leaf.url;
    return `node on its own (${outer.replace('node:', '')})`;
  }
  return leaf.functionName || '(native)';
}

function byPhase(profile: Profile): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const phaseCache = new Map<number, string>();
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    let phase = phaseCache.get(id);
    if (phase === undefined) {
      const stack: ProfileNode[] = [];
      for (let n = byId.get(id); n; n = parent.get(n.id)) stack.unshift(n);
      phase = phaseOf(stack);
      phaseCache.set(id, phase);
    }
    totals.set(phase, (totals.get(phase) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return totals;
}

/** The marks of one request through a proxy, in the order they happen at one client. */
const MARKS = [
  'received',
  'key checked',
  'upstream request sent',
  'upstream answer',
  'response written',
] as const;
type Mark = (typeof MARKS)[number];

/**
 * Timestamps (wall and this process's CPU) at each mark of every request while `run` goes, from node's own
 * HTTP diagnostics channels (the hub's request parsed, the upstream request flushed to its socket, the
 * upstream answer's headers parsed, the answer handed to the socket) and the developer-key check. One
 * client, so requests do not overlap; a request missing a mark (the bare proxy checks no key) skips it.
 */
async function phases(run: () => Promise<unknown>) {
  const rows: Array<Partial<Record<Mark, { wall: number; cpu: number }>>> = [];
  let current: Partial<Record<Mark, { wall: number; cpu: number }>> = {};
  const mark = (name: Mark) => {
    const { user, system } = process.cpuUsage();
    current[name] = { wall: performance.now(), cpu: user + system };
  };
  const onRequest = () => {
    current = {};
    rows.push(current);
    mark('received');
  };
  const listeners: Array<[string, () => void]> = [
    ['http.server.request.start', onRequest],
    ['http.client.request.start', () => mark('upstream request sent')],
    ['http.client.response.finish', () => mark('upstream answer')],
    ['http.server.response.finish', () => mark('response written')],
  ];
  for (const [name, listener] of listeners) diagnostics.subscribe(name, listener);
  const authenticate = DeveloperKeys.prototype.authenticate;
  DeveloperKeys.prototype.authenticate = function (this: DeveloperKeys, secret: string) {
    const key = authenticate.call(this, secret);
    mark('key checked');
    return key;
  };
  const usage0 = process.cpuUsage();
  try {
    await run();
  } finally {
    const usage = process.cpuUsage(usage0);
    console.log(
      `  (marked run: ${((usage.user + usage.system) / Math.max(1, rows.length)).toFixed(0)} µs CPU/request over ${rows.length} requests)`,
    );
    for (const [name, listener] of listeners) diagnostics.unsubscribe(name, listener);
    DeveloperKeys.prototype.authenticate = authenticate;
  }
  const out: Array<{ phase: string; wallP50: number; cpuMean: number }> = [];
  const seen = MARKS.filter((m) => rows.some((r) => r[m]));
  for (let i = 1; i < seen.length; i++) {
    const [from, to] = [seen[i - 1] as Mark, seen[i] as Mark];
    const spans = rows.flatMap((r) => {
      const a = r[from];
      const b = r[to];
      return a && b ? [{ wall: (b.wall - a.wall) * 1000, cpu: b.cpu - a.cpu }] : [];
    });
    const walls = spans.map((s) => s.wall).sort((a, b) => a - b);
    out.push({
      phase: `${from} → ${to}`,
      wallP50: walls[walls.length >> 1] ?? Number.NaN,
      cpuMean: spans.reduce((a, s) => a + s.cpu, 0) / Math.max(1, spans.length),
    });
  }
  // From the answer handed over to the next request parsed: the client's turn, and whatever the proxy
  // still does after answering (listeners, finally blocks, keep-alive timers, GC).
  const between = rows.slice(1).flatMap((r, i) => {
    const a = rows[i]?.['response written'];
    const b = r.received;
    return a && b ? [{ wall: (b.wall - a.wall) * 1000, cpu: b.cpu - a.cpu }] : [];
  });
  const walls = between.map((s) => s.wall).sort((a, b) => a - b);
  out.push({
    phase: 'response written → next request received',
    wallP50: walls[walls.length >> 1] ?? Number.NaN,
    cpuMean: between.reduce((a, s) => a + s.cpu, 0) / Math.max(1, between.length),
  });
  return out;
}

async function main() {
  const upstream = await instantUpstream();
  const loader = startLoader();
  const hub = await startTestHub({
    plugins: ['translation'],
    config: {
      log: { level: 'warn' },
      store: { coalesceMs: 1000 },
      plugins: {
        translation: {
          engines: [{ type: 'deepl', url: upstream.url, apiKey: 'bench-upstream-key' }],
          cache: { maxEntries: 0 },
        },
      },
    },
  });
  const keyRes = await fetch(`${hub.url}/v2/admin/developer-keys`, {
    method: 'POST',
    headers: { authorization: `DeepL-Auth-Key ${hub.adminKey}`, 'content-type': 'application/json' },
    body: '{"label":"bench"}',
  });
  const auth = { authorization: `DeepL-Auth-Key ${((await keyRes.json()) as { key: string }).key}` };
  const url = `${hub.url}/v2/translate`;
  const body = JSON.stringify({
    text: ['The washing machine has finished'],
    target_lang: 'DE',
    source_lang: 'EN',
  });

  const bare = await bareProxy(upstream.url);
  const bareUrl = `${bare.url}/v2/translate`;
  const direct = `${upstream.url}/v2/translate`;
  await loader.load(url, body, auth, 1, WARMUP);
  await loader.load(bareUrl, body, {}, 1, WARMUP);
  /** CPU of this process per request (user, system; main thread alone) while `target` serves one client. */
  const measure = async (target: string, headers: Record<string, string>) => {
    const usage0 = process.cpuUsage();
    const run = await loader.load(target, body, headers, CLIENTS, REQUESTS);
    const usage = process.cpuUsage(usage0);
    return {
      p50: run.sorted[REQUESTS >> 1] ?? Number.NaN,
      user: usage.user / REQUESTS,
      system: usage.system / REQUESTS,
    };
  };
  console.log(
    `${REQUESTS} requests per run, ${CLIENTS} client(s), after ${WARMUP} warm-up; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  // Alternating rounds: other load on the machine moves every figure; the medians are what to compare.
  const rows: Record<string, Array<{ added: number; cpu: number; user: number; system: number }>> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    const upstreamAlone = await measure(direct, {});
    for (const [name, target, headers] of [
      ['bare Node proxy', bareUrl, {}],
      ['Hearth', url, auth],
    ] as const) {
      const m = await measure(target, headers);
      rows[name] ??= [];
      rows[name].push({
        added: m.p50 - upstreamAlone.p50,
        cpu: m.user + m.system,
        user: m.user,
        system: m.system,
      });
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
  for (const [name, list] of Object.entries(rows)) {
    console.log(
      `  ${name.padEnd(15)} added p50 ${median(list.map((r) => r.added)).toFixed(3)} ms | CPU ${median(list.map((r) => r.cpu)).toFixed(0)} µs/request ` +
        `(user ${median(list.map((r) => r.user)).toFixed(0)}, system ${median(list.map((r) => r.system)).toFixed(0)}) ` +
        `[medians of ${ROUNDS} rounds; CPU per round ${list.map((r) => r.cpu.toFixed(0)).join(' ')}]`,
    );
  }
  // Per phase (wall p50, and CPU of this process on average, both in µs): one run each, with the marks.
  for (const [name, target, headers] of [
    ['bare Node proxy', bareUrl, {}],
    ['Hearth', url, auth],
  ] as const) {
    const list = await phases(() => loader.load(target, body, headers, 1, REQUESTS));
    console.log(`  phases, ${name} (wall p50 µs | CPU µs/request):`);
    for (const p of list) {
      console.log(
        `    ${p.phase.padEnd(45)} ${p.wallP50.toFixed(1).padStart(7)} | ${p.cpuMean.toFixed(1).padStart(6)}`,
      );
    }
  }
  await bare.close();

  // With BENCH_PERF_OUT (and node run with --perf-basic-prof), Linux perf samples this process on CPU
  // time only, which a loaded machine does not inflate the way the inspector's wall-clock samples are.
  const perfOut = process.env.BENCH_PERF_OUT;
  if (perfOut) {
    const perf = spawn(
      'perf',
      ['record', '-e', 'task-clock', '-F', '4000', '-g', '-p', String(process.pid), '-o', perfOut],
      {
        stdio: 'inherit',
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await loader.load(url, body, auth, 1, REQUESTS);
    perf.kill('SIGINT');
    await once(perf, 'exit');
  }

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  await loader.load(url, body, auth, 1, REQUESTS);
  const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
  session.disconnect();
  writeFileSync(OUT, JSON.stringify(profile));

  const totals = byPhase(profile);
  const idle = totals.get('(idle)') ?? 0;
  totals.delete('(idle)');
  const busy = [...totals.values()].reduce((a, b) => a + b, 0);
  console.log(
    `profiled run: ${(busy / REQUESTS).toFixed(0)} µs/request of main-thread samples (+ ${(idle / REQUESTS).toFixed(0)} µs idle); profile: ${OUT}`,
  );
  for (const [phase, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    console.log(
      `  ${(us / REQUESTS).toFixed(1).padStart(6)} µs ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${phase}`,
    );
  }
  await hub.stop();
  await upstream.close();
  await loader.stop();
}

await main();
