/**
 * A property-based fuzzer over every route of every listener, as the hub's routers list them: path
 * parameters, queries, headers and bodies drawn from hostile values (prototype names as ids, keys and
 * values, huge and deep values, wrong types, bad encodings and content types). Every answer must be
 * below 500 and an error must be JSON; the hub must not crash, its memory must stay flat, and afterwards
 * it must still work — before and after a restart — with an unrelated site token still valid.
 */
import http from 'node:http';
import path from 'node:path';
import fc from 'fast-check';
import type { RouteInfo } from '../../core/http/listener.ts';
import { unreadableFiles } from './data-files.ts';
import { type Fixtures, fixtures, siteToken, siteWithThings } from './fixtures.ts';
import {
  hostileObject,
  mutated,
  PROTO_NAMES,
  queryString,
  type RawBody,
  rawBodies,
  segment,
} from './fuzz-values.ts';
import { type Answer, request } from './http.ts';

const fresh = new http.Agent({ keepAlive: false });

import { startHub, workDir } from './hub.ts';
import { fail, mb, newResult, type PartResult } from './report.ts';
import { clientBody } from './writes.ts';

interface Route {
  listener: string;
  method: string;
  path: string;
}

interface Req {
  route: Route;
  url: string;
  auth: 'right' | 'none' | 'wrong';
  query: string;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; raw: RawBody };
}

/** Routes the fuzzer leaves alone, and why. */
const SKIP: Record<string, string> = {
  'admin POST /admin/admin-key/rotate': 'would lock the fuzzer out (covered by its own tests)',
};
/** Requests in the flat-memory sample (sent three times). */
const MEMORY_SAMPLE = 2000;
const WILDCARD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function listRoutes(all: Record<string, RouteInfo[]>): Route[] {
  const out: Route[] = [];
  const seen = new Set<string>();
  for (const [listener, routes] of Object.entries(all)) {
    for (const r of routes) {
      const methods =
        r.methods.length > 10
          ? WILDCARD_METHODS
          : r.methods.filter((m) => m !== 'HEAD' || r.methods.length === 1);
      for (const method of methods) {
        const key = `${listener} ${method} ${r.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ listener, method, path: r.path });
      }
    }
  }
  return out;
}

/** Real values for each path parameter name. */
function realParams(fx: Fixtures): Record<string, string[]> {
  const ids = [fx.siteid, fx.light, fx.scene, fx.group, fx.sensor, fx.client, fx.user, fx.mqttDevice];
  return {
    key: [fx.sitekey, fx.siteid],
    id: ids,
    slug: [`site-${fx.siteid}`, 'translation'],
    ref: [`site-${fx.siteid}`, 'translation'],
    client_id: [fx.client],
    username: [fx.mqttUser],
    file: ['app.js', 'index.html', 'devices.js'],
    jti: [],
    actionid: ['press'],
    rest: ['translate', 'usage', 'glossaries', 'document'],
  };
}

/** Bodies a route accepts, so mutations reach past the first validation. */
function seeds(fx: Fixtures): Record<string, Record<string, unknown>> {
  return {
    'POST /admin/sites': { name: 'fuzzed' },
    'PATCH /admin/sites/:id': { name: 'renamed' },
    'POST /api/site/:key/light': { name: 'L', type: 'dimmable', vendor: 'virtual', virtualid: 'fz' },
    'PUT /api/site/:key/light': { _id: fx.light, name: 'L2' },
    'PUT /api/site/:key/light/state': { _id: fx.light, on: true, bri: 128 },
    'PUT /site/:key/light/state': { _id: fx.light, on: true, bri: 128 },
    'POST /api/site/:key/light/group': { name: 'G', lights: [fx.light] },
    'PUT /api/site/:key/light/group': { _id: fx.group, name: 'G2' },
    'PUT /api/site/:key/light/group/toggle': { _id: fx.group, on: false },
    'POST /api/site/:key/scene': { name: 'S', state: [{ _id: fx.light, on: true, bri: 3 }] },
    'PUT /api/site/:key/scene': { _id: fx.scene, name: 'S2' },
    'PUT /api/site/:key/scene/apply': { _id: fx.scene },
    'PUT /site/:key/scene/apply': { _id: fx.scene },
    'POST /api/site/:key/sensor': {
      name: 'B',
      vendor: 'virtual',
      virtualid: 'b',
      type: 'button',
      events: ['x'],
    },
    'PUT /api/site/:key/sensor': { _id: fx.sensor, name: 'B2' },
    'POST /api/site/:key/sensor/action': {
      _id: fx.sensor,
      event: 'press',
      action: { type: 'light', _id: fx.light, on: true, bri: 9 },
    },
    'POST /api/site/:key/sensor/event': { _id: fx.sensor, event: 'press' },
    'PUT /api/site/:key': { name: 'Fuzz' },
    'POST /api/site/:key/announce': { text: 'hello', target_lang: 'DE' },
    'POST /v2/translate': { text: ['hello'], target_lang: 'DE' },
    'POST /v2/admin/developer-keys': { label: 'k' },
    'PUT /v2/admin/developer-keys/deactivate': { key_id: fx.devkeyId },
    'PUT /v2/admin/developer-keys/label': { key_id: fx.devkeyId, label: 'l' },
    'PUT /v2/admin/developer-keys/limits': { key_id: fx.devkeyId, characters: 1000 },
    'POST /admin/clients': clientBody('fz'),
    'PATCH /admin/clients/:id': { client_name: 'fz2' },
    'POST /admin/users': { email: 'a@example.com', name: 'A', password: 'long enough pw', role: 'user' },
    'PATCH /admin/users/:id': { name: 'B' },
    'POST /admin/resources': { backend_kind: 'mint', slug: 'fz', uri: '', display_name: 'F', scopes: ['a'] },
    'PATCH /admin/resources/:id': { display_name: 'F2' },
    'POST /admin/resources/:slug/policy/connect/allowed-return-urls': { url: 'https://example.com/cb' },
    'POST /admin/resources/:slug/policy/exchange/allowed-clients': { client_id: fx.client },
    'POST /admin/resources/:slug/policy/runtime/client-ids': { client_id: fx.client },
    'PATCH /admin/settings/dcr': { mode: 'open' },
    'POST /admin/mqtt/credentials': { username: 'fz', site: fx.siteid },
    'POST /admin/mqtt/devices': { mqttid: 'tasmota:fz', site: fx.siteid, kind: 'dimmable' },
    'PATCH /admin/mqtt/devices/:id': { new: false },
    'POST /admin/auth/verify': { key: 'x' },
    'POST /oauth/register': { redirect_uris: ['https://example.com/cb'], client_name: 'r' },
  };
}

function fill(template: string, values: Record<string, string>): string {
  return template
    .replace(/\{\/\*(\w+)\}/g, (_, n: string) => (values[n] ? `/${values[n]}` : ''))
    .replace(/:(\w+)/g, (_, n: string) => values[n] ?? 'x');
}

const paramNames = (p: string) =>
  [...p.matchAll(/:(\w+)|\{\/\*(\w+)\}/g)].map((m) => (m[1] ?? m[2]) as string);

function authHeader(r: Route, fx: Fixtures, adminKey: string, auth: Req['auth']): Record<string, string> {
  if (auth === 'none') return {};
  const wrong = auth === 'wrong';
  if (r.listener === 'admin') return { authorization: `Bearer ${wrong ? 'nope' : adminKey}` };
  if (r.path.startsWith('/v2/admin')) return { authorization: `DeepL-Auth-Key ${wrong ? 'nope' : adminKey}` };
  if (r.path.startsWith('/v2') || r.path.startsWith('/v3'))
    return { authorization: `DeepL-Auth-Key ${wrong ? '__proto__' : fx.devkey}` };
  if (r.path.startsWith('/oauth/')) {
    const basic = Buffer.from(`${fx.client}:${wrong ? 'constructor' : fx.clientSecret}`).toString('base64');
    return { authorization: `Basic ${basic}` };
  }
  return wrong ? { authorization: 'Bearer constructor' } : {};
}

function requestArb(
  r: Route,
  fx: Fixtures,
): fc.Arbitrary<Omit<Req, 'url'> & { params: Record<string, string> }> {
  const real = realParams(fx);
  const params = Object.fromEntries(paramNames(r.path).map((n) => [n, segment(real[n] ?? [])]));
  const seed = seeds(fx)[`${r.method} ${r.path}`] ?? {};
  const hasBody = r.method !== 'GET' && r.method !== 'HEAD' && r.method !== 'OPTIONS';
  const body = hasBody
    ? fc.oneof(
        { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
        { weight: 4, arbitrary: mutated(seed).map((value) => ({ kind: 'json' as const, value })) },
        { weight: 2, arbitrary: hostileObject.map((value) => ({ kind: 'json' as const, value })) },
        { weight: 2, arbitrary: rawBodies(seed).map((raw) => ({ kind: 'raw' as const, raw })) },
      )
    : fc.oneof(
        { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
        { weight: 1, arbitrary: rawBodies(seed).map((raw) => ({ kind: 'raw' as const, raw })) },
      );
  return fc.record({
    route: fc.constant(r),
    params: fc.record(params),
    auth: fc.oneof(
      { weight: 8, arbitrary: fc.constant('right' as const) },
      fc.constantFrom('none' as const, 'wrong' as const),
    ),
    query: fc.oneof({ weight: 2, arbitrary: fc.constant('') }, queryString),
    body,
  });
}

const short = (v: unknown) => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 160 ? `${s.slice(0, 150)}…(${s.length} chars)` : s;
};

function describe(q: Req): string {
  const b =
    q.body.kind === 'none'
      ? ''
      : q.body.kind === 'json'
        ? ` body ${short(q.body.value)}`
        : ` body <${q.body.raw.label}> ${short(q.body.raw.headers)}`;
  return `${q.route.method} ${q.route.listener}:${short(q.url)}${q.auth === 'right' ? '' : ` (auth ${q.auth})`}${b}`;
}

class Problem extends Error {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
  }
}

/** A failure's kind: its status and what kind of body caused it (a bad encoding, a JSON value). */
const kindOf = (q: Req, problem: string) =>
  `${problem.slice(0, 3)} ${q.body.kind === 'raw' ? q.body.raw.label : q.body.kind} ${q.auth}`;

export async function run({ budgetMs }: { budgetMs: number }): Promise<PartResult> {
  const r = newResult('fuzz: every route, every listener');
  const started = Date.now();
  const dir = workDir('fuzz');
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'hub.log');
  const adminKey = 'torture-fuzz-admin-key-0123456789';
  // Virtual drivers for the fuzzed sites (drivers are bound to sites at start: restart once they exist).
  const config = {
    plugins: {
      lighting: {
        drivers: [
          { id: 'fuzz', type: 'virtual', site: 'Fuzz' },
          { id: 'sentinel', type: 'virtual', site: 'Sentinel' },
        ],
      },
    },
  };
  let hub = await startHub({ dataDir, logFile, adminKey, config });
  const fx = await fixtures(hub);
  // A site the fuzzer never learns of, with a live token: no fuzzed request may touch it.
  const sentinel = await siteWithThings(hub, 'Sentinel');
  const sc = await hub.admin('POST', '/admin/clients', {
    ...clientBody('sentinel'),
    resources: [`urn:hearth:site:${sentinel.siteid}`],
  });
  const sentinelToken = await siteToken(
    hub,
    sc.body.client_id,
    sc.body.client_secret,
    sentinel.siteid,
    'lights:read',
  );
  const sentinelReads = async () =>
    (
      await hub.call('main', 'GET', `/api/site/${sentinel.siteid}/light`, undefined, {
        authorization: `Bearer ${sentinelToken}`,
      })
    ).status;
  await hub.stop();
  hub = await startHub({ dataDir, logFile, adminKey, config });
  if ((await sentinelReads()) !== 200) fail(r, 'setup', 'the sentinel token cannot read its own site');

  const routes = listRoutes(hub.routes).filter((rt) => !SKIP[`${rt.listener} ${rt.method} ${rt.path}`]);
  const seed = Number(process.env.TORTURE_SEED ?? Math.floor(Math.random() * 2 ** 31));
  let requests = 0;
  let crashes = 0;

  // Every 20th fuzzed request is kept for the flat-memory check, which sends them again.
  const sample: Req[] = [];
  const send = async (q: Req): Promise<string | null> => {
    requests += 1;
    if (requests % 20 === 0 && sample.length < MEMORY_SAMPLE) sample.push(q);
    const headers = { ...authHeader(q.route, fx, adminKey, q.auth) };
    let raw: Buffer | undefined;
    if (q.body.kind === 'json') {
      raw = Buffer.from(JSON.stringify(q.body.value) ?? 'null');
      headers['content-type'] = 'application/json';
    } else if (q.body.kind === 'raw') {
      raw = q.body.raw.bytes;
      Object.assign(headers, q.body.raw.headers);
    }
    const url = `${hub.urls[q.route.listener]}${q.url}`;
    let res: Answer | undefined;
    try {
      res = await request(url, {
        method: q.route.method,
        headers,
        ...(raw ? { raw } : {}),
        timeoutMs: 20_000,
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (!hub.alive()) {
        crashes += 1;
        const how = await hub.exited;
        hub = await startHub({ dataDir, logFile, adminKey, config });
        return `hub died (${how.code ?? how.signal})`;
      }
      // A server may answer an oversized body early and close while the rest is still being sent.
      if ((code === 'ECONNRESET' || code === 'EPIPE') && raw && raw.length > 1024 * 1024) return null;
      // A kept-alive socket the server closed just as the request went out: sent again on a new one.
      const again = await request(url, {
        method: q.route.method,
        headers,
        ...(raw ? { raw } : {}),
        timeoutMs: 20_000,
        agent: fresh,
      }).catch((e: Error) => e);
      if (again instanceof Error) return `no answer: ${(err as Error).message}, then ${again.message}`;
      res = again;
    }
    // 503 with Retry-After (a restore running) and the lighting spec's 503 for a light whose driver is not
    // running are answers, not failures.
    // A 503 that says in JSON what is unavailable (a light's driver not running, no Zigbee stick, a
    // restore with Retry-After) is an answer about the installation, not a failure.
    const specified = res.status === 503 && (res.headers['retry-after'] || res.body !== undefined);
    if (res.status >= 500 && !specified) {
      return `${res.status} ${short(res.text)}`;
    }
    const type = String(res.headers['content-type'] ?? '');
    if (res.status >= 400 && q.route.method !== 'HEAD' && !type.includes('html') && res.body === undefined) {
      return `${res.status} error is not JSON (${type || 'no content type'}): ${short(res.text)}`;
    }
    return null;
  };

  // Warm up every route once (lazy imports, caches), then take the memory baseline.
  for (const rt of routes)
    await send({ route: rt, url: fill(rt.path, {}), auth: 'right', query: '', body: { kind: 'none' } });
  const before = await hub.mem();
  const phase = (name: string) => {
    if (process.env.TORTURE_VERBOSE)
      console.log(`  fuzz: ${name} at ${((Date.now() - started) / 1000).toFixed(0)} s, ${requests} requests`);
  };
  phase('warm-up done');

  // 1. Every path parameter of every route set to each prototype name: never a 2xx, never a 5xx.
  let sweep = 0;
  for (const rt of routes) {
    const names = paramNames(rt.path);
    if (names.length === 0) continue;
    const real = realParams(fx);
    for (const name of names) {
      for (const proto of PROTO_NAMES) {
        const values = Object.fromEntries(names.map((n) => [n, n === name ? proto : (real[n]?.[0] ?? 'x')]));
        const q: Req = {
          route: rt,
          url: fill(rt.path, values),
          auth: 'right',
          query: 'force=true',
          body: { kind: 'json', value: seeds(fx)[`${rt.method} ${rt.path}`] ?? {} },
        };
        sweep += 1;
        r.trials += 1;
        const problem = await send(q);
        if (problem) fail(r, `${rt.listener} ${rt.method} ${rt.path}`, `${describe(q)} → ${problem}`);
      }
    }
  }
  // Ids inside bodies that name a record (developer keys, lights, scenes): prototype names find nothing.
  const bodyIds: Array<[string, string, string]> = [
    ['PUT', '/v2/admin/developer-keys/deactivate', 'key_id'],
    ['PUT', '/v2/admin/developer-keys/label', 'key_id'],
    ['PUT', '/v2/admin/developer-keys/limits', 'key_id'],
    ['PUT', '/api/site/:key/light', '_id'],
    ['PUT', '/api/site/:key/light/state', '_id'],
    ['PUT', '/api/site/:key/scene', '_id'],
    ['PUT', '/api/site/:key/scene/apply', '_id'],
    ['PUT', '/api/site/:key/sensor', '_id'],
    ['POST', '/api/site/:key/sensor/event', '_id'],
  ];
  for (const [method, p, field] of bodyIds) {
    const rt = routes.find((x) => x.method === method && x.path === p);
    if (!rt) continue;
    for (const proto of PROTO_NAMES) {
      const q: Req = {
        route: rt,
        url: fill(p, { key: fx.sitekey }),
        auth: 'right',
        query: '',
        body: { kind: 'json', value: { ...seeds(fx)[`${method} ${p}`], [field]: proto } },
      };
      sweep += 1;
      r.trials += 1;
      const problem = await send(q);
      if (problem) fail(r, `${rt.listener} ${method} ${p}`, `${describe(q)} → ${problem}`);
    }
  }

  // 2. Property-based: each route gets an equal share of what is left of the budget. A failure is shrunk
  // and recorded once per kind; the route is then fuzzed on with that kind set aside, to find the next.
  const fuzzEnd = started + budgetMs * 0.4;
  let runs = 0;
  for (const [i, rt] of routes.entries()) {
    const share = Math.max(100, (fuzzEnd - Date.now()) / (routes.length - i));
    const routeStart = Date.now();
    const routeEnd = routeStart + share;
    const known = new Set<string>();
    for (let round = 0; round < 4 && Date.now() < routeEnd; round++) {
      const details = await fc.check(
        fc.asyncProperty(requestArb(rt, fx), async (g) => {
          const q: Req = { ...g, url: fill(rt.path, g.params) + (g.query ? `?${g.query}` : '') };
          const problem = await send(q);
          if (problem && !known.has(kindOf(q, problem)))
            throw new Problem(`${describe(q)} → ${problem}`, kindOf(q, problem));
        }),
        {
          seed: seed + i * 7 + round,
          numRuns: 400,
          interruptAfterTimeLimit: Math.max(100, routeEnd - Date.now()),
          markInterruptAsFailure: false,
        },
      );
      runs += details.numRuns;
      // Only a request that failed counts: a run cut short by its time limit on a slow machine does not.
      if (!details.failed || !(details.errorInstance instanceof Problem)) break;
      const e = details.errorInstance;
      known.add(e?.kind ?? 'unknown');
      fail(
        r,
        `${rt.listener} ${rt.method} ${rt.path}`,
        `${e?.message ?? 'property failed'} (shrunk ${details.numShrinks}×, seed ${seed + i * 7 + round})`,
      );
    }
    if (Date.now() - routeStart > share + 2000)
      phase(`${rt.method} ${rt.path} took ${Date.now() - routeStart} ms (share ${share.toFixed(0)})`);
  }
  r.trials += runs;
  phase('properties done');
  const after = await hub.mem();

  // Flat memory: the same hostile requests (every 20th of the fuzz, over every route) sent three times.
  // The first pass settles caches and the allocator; a leak shows as growth from the first pass to the
  // third. (Growth over the whole fuzz also holds what it created: sites, lights, clients…)
  // Three passes must fit in a fifth of the budget at the pace the fuzz ran (the machine may be loaded).
  const msPerRequest = (Date.now() - started) / Math.max(1, requests);
  sample.length = Math.min(sample.length, Math.max(200, Math.floor((budgetMs * 0.15) / 3 / msPerRequest)));
  const passes: Array<Awaited<ReturnType<typeof hub.mem>>> = [];
  for (let pass = 0; pass < 3; pass++) {
    for (const q of sample) {
      r.trials += 1;
      const problem = await send(q);
      if (problem)
        fail(r, `${q.route.listener} ${q.route.method} ${q.route.path}`, `${describe(q)} → ${problem}`);
    }
    passes.push(await hub.mem());
    phase(`memory pass ${pass + 1} done`);
  }
  const [p1, , p3] = passes as [typeof after, typeof after, typeof after];
  if (p3.heapUsed - p1.heapUsed > 8 * 1048576 || p3.rss - p1.rss > 16 * 1048576)
    fail(
      r,
      'memory not flat',
      `the same ${sample.length} requests three times: RSS ${passes.map((m) => mb(m.rss)).join(' → ')}, heap ${passes.map((m) => mb(m.heapUsed)).join(' → ')}`,
    );

  // 3. Still working: the sentinel token, the surfaces earlier defects broke for good, and every file.
  const stillWorks = async (when: string) => {
    if ((await sentinelReads()) !== 200) fail(r, 'sentinel token revoked by fuzzing', when);
    const checks: Array<[string, () => Promise<{ status: number; text: string }>]> = [
      ['GET /ready', () => hub.call('main', 'GET', '/ready')],
      ['GET discovery', () => hub.call('auth', 'GET', '/.well-known/oauth-authorization-server')],
      [
        'GET protected-resource metadata',
        () => hub.call('auth', 'GET', '/.well-known/oauth-protected-resource'),
      ],
      ['GET /admin/resources', () => hub.admin('GET', '/admin/resources')],
      ['POST /admin/clients', () => hub.admin('POST', '/admin/clients', clientBody('after'))],
      ['POST /admin/sites', () => hub.admin('POST', '/admin/sites', { name: 'after' })],
      [
        'POST developer key',
        () =>
          hub.call(
            'main',
            'POST',
            '/v2/admin/developer-keys',
            { label: 'after' },
            { authorization: `DeepL-Auth-Key ${adminKey}` },
          ),
      ],
    ];
    for (const [name, call] of checks) {
      const res = await call();
      if (res.status >= 300)
        fail(r, 'broken after fuzzing', `${when}: ${name} → ${res.status} ${short(res.text)}`);
    }
  };
  await stillWorks('after fuzzing');
  const stop = await hub.stop();
  if (stop.code !== 0) fail(r, 'stop after fuzzing', `exit ${stop.code ?? stop.signal}`);
  for (const bad of unreadableFiles(dataDir)) fail(r, 'unreadable file after fuzzing', bad);
  hub = await startHub({ dataDir, logFile, adminKey, config });
  await stillWorks('after a restart');
  await hub.stop();

  if (crashes > 0) r.figures.push(`${crashes} crashes (restarted)`);
  r.figures.push(
    `${routes.length} routes on ${Object.keys(hub.urls).length} listeners, ${requests} requests (${sweep} prototype-id probes), seed ${seed}`,
    `after GC, whole fuzz: RSS ${mb(before.rss)} → ${mb(after.rss)}, heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)}, external ${mb(before.external)} → ${mb(after.external)}`,
    `same ${sample.length} requests ×3: RSS ${passes.map((m) => mb(m.rss)).join(' → ')}, heap ${passes.map((m) => mb(m.heapUsed)).join(' → ')}`,
  );
  return r;
}
