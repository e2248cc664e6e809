/**
 * `node --import tsx scripts/bench/profile-phases.ts PROFILE [--skip-s S] [--until-s S] [--cpu-per-req µs | --requests N]`:
 * a V8 CPU profile's busy time (self time, idle left out) by request phase, for the lighting bench's
 * servers (`BENCH_CPU_PROF=<dir> npm run bench:lighting`). Each sample goes to a phase by the file it ran
 * in; with `--cpu-per-req` (the bench's /proc figure) each share is also shown in µs per request.
 */
import { readProfile, selfTimes } from '../lib/cpu-profile.ts';

const args = process.argv.slice(2);
const file = args[0];
if (!file) throw new Error('usage: profile-phases.ts PROFILE [--skip-s S] [--until-s S] [--cpu-per-req µs]');
const opt = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : undefined;
};
let skipUs = (opt('skip-s') ?? 0) * 1e6;
const untilUs = (opt('until-s') ?? Number.POSITIVE_INFINITY) * 1e6;
const perReq = opt('cpu-per-req');
/** The requests the server answered in the profile (the bench prints them): µs of profiled time per request. */
const requests = opt('requests');

/** Phases in table order; the first whose test matches the sample's file (or function) wins. */
const PHASES: Array<[string, (url: string, fn: string) => boolean]> = [
  ['GC', (_u, fn) => fn === '(garbage collector)'],
  [
    'promise and tick machinery',
    (u, fn) =>
      /node:internal\/(process\/task_queues|timers|async_hooks)/.test(u) ||
      fn === 'processTicksAndRejections' ||
      fn === 'runMicrotasks',
  ],
  [
    'site key sha256 and access',
    (u) => /plugins\/lighting\/(access|sites)\.ts|node:internal\/crypto/.test(u),
  ],
  [
    'body parse',
    (u) =>
      /node_modules\/(koa-body|co-body|raw-body|@hapi\/bourne|inflation|iconv-lite|bytes|unpipe|zod)\//.test(
        u,
      ) || u.includes('plugins/lighting/routes/direct-body.ts'),
  ],
  [
    'routing (@koa/router, koa-compose, route memo, direct lookup)',
    (u) =>
      /node_modules\/(@koa\/router|koa-compose|path-to-regexp)\/|core\/http\/(route-memo|router)\.ts/.test(u),
  ],
  [
    'Koa: context, response, type-is, mime',
    (u) =>
      /node_modules\/(koa|type-is|mime-types|mime-db|content-type|media-typer|statuses|on-finished|ee-first|delegates|only|vary|encodeurl|escape-html|http-errors|depd|cookies|accepts|negotiator|destroy|fresh|http-assert|content-disposition|koa-convert)\//.test(
        u,
      ),
  ],
  [
    'Hearth frame, listener, metrics, request id, log',
    (u) => /\/core\/(http|metrics|log)\/|node_modules\/pino/.test(u),
  ],
  [
    'lighting command path (route, checks, control, queue, driver report, store, bus, history)',
    (u) =>
      /\/plugins\/lighting\/|\/drivers\/|\/core\/(bus|store|plugin)\/|scripts\/bench\/lighting\.ts/.test(u),
  ],
  ['Node: HTTP parse, socket write, streams, events', (u) => u.startsWith('node:')],
  ['other (V8 itself, natives, program)', () => true],
];

const profile = readProfile(file);
const { byId } = profile;
// Without --skip-s the window starts at the load: the first second with 10 samples in Node's HTTP code
// (the set-up before it, module loading and a few requests, is not the load).
if (opt('skip-s') === undefined) {
  const buckets = new Map<number, number>();
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const url = byId.get(profile.samples[i] as number)?.callFrame.url ?? '';
    if (!/node:_http_(server|common|outgoing)/.test(url)) continue;
    const b = Math.floor(at / 1e6);
    buckets.set(b, (buckets.get(b) ?? 0) + 1);
  }
  const first = [...buckets].filter(([, n]) => n >= 10).sort((a, b) => a[0] - b[0])[0];
  skipUs = first ? first[0] * 1e6 : 0;
}
const us = new Array<number>(PHASES.length).fill(0);
for (const [id, t] of selfTimes(profile, skipUs, untilUs).self) {
  const f = byId.get(id)?.callFrame;
  if (!f) continue;
  const phase = PHASES.findIndex(([, test]) => test(f.url, f.functionName));
  us[phase] = (us[phase] ?? 0) + t;
}
const busy = us.reduce((a, b) => a + b, 0);
console.log(
  `from ${(skipUs / 1e6).toFixed(1)} s: busy ${(busy / 1e6).toFixed(2)} s${perReq ? `, scaled to ${perReq} µs per request` : ''}`,
);
PHASES.forEach(([name], i) => {
  const share = (us[i] ?? 0) / busy;
  const scaled = perReq
    ? `  ${(share * perReq).toFixed(1).padStart(6)} µs`
    : requests
      ? `  ${((us[i] ?? 0) / requests).toFixed(1).padStart(6)} µs/req`
      : '';
  console.log(`${(100 * share).toFixed(1).padStart(5)} %${scaled}  ${name}`);
});
