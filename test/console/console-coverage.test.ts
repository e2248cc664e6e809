/**
 * "Every action the admin API has" is in the console: the hub is booted with every plugin, its admin routes
 * are listed (`Hub.routes()`), and each one must be called by some console page — the page modules are read
 * the way a browser gets them, through a signed-in console session. A route added without a console control
 * fails here until a page offers it (or it joins the short list below of routes that are not an operator's
 * action, each with the reason).
 *
 * A page calls the admin API as `api.get(path)`, `api.href(path)` (a download), `api.upload(path, …)`
 * (POST) or, for every method, a call whose first two arguments are a method literal and a path literal
 * (`api.send('PATCH', `/clients/${id}`, …)` or a page's own wrapper with the same shape). A `${…}` in the
 * path stands for one path segment or more; a query string is ignored. The browser tests of each page show
 * the controls work; this file shows none is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

/** Admin routes that are not an operator's action in a browser, and why. */
const NOT_A_CONSOLE_ACTION: Record<string, string> = {
  'POST /admin/auth/verify':
    'a machine check of an admin key (the console signs in with POST /admin/ui/session)',
  'GET /metrics':
    'Prometheus exposition with Basic auth; the console reads the same text as GET /admin/metrics',
  // Reads of what the console already shows from a wider read:
  'GET /admin/resources/:slug/policy/connect/allowed-return-urls': 'in each resource of GET /admin/resources',
  'GET /admin/resources/:slug/policy/exchange/allowed-clients': 'in each resource of GET /admin/resources',
  'GET /admin/resources/:slug/policy/runtime/client-ids': 'in each resource of GET /admin/resources',
};

let t: TestHub;
let sim: ZnpSimulator;
let cookie = '';

beforeAll(async () => {
  sim = await startZnpSimulator({ blank: true });
  t = await startTestHub({
    plugins: ['console', 'lighting', 'mqtt-devices', 'hue', 'zigbee', 'auth', 'translation', 'matter'],
    config: {
      // matter.js loads in seconds; on a busy machine more than the default start bound (10 s).
      lifecycle: { pluginStartTimeoutMs: 60_000 },
      plugins: {
        zigbee: { path: sim.path },
        // Off by default: on here so its admin routes are counted (its bridges on ::1, mDNS on lo only).
        matter: { enabled: true, port: 0, listen: '::1', mdnsInterface: 'lo' },
      },
    },
  });
  const res = await fetch(`${t.adminUrl}/admin/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: t.adminUrl },
    body: JSON.stringify({ key: t.adminKey }),
  });
  expect(res.status).toBe(200);
  cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await sim?.stop();
});

interface Call {
  method: string;
  /** The path as the page writes it, `${…}` kept. */
  path: string;
  page: string;
}

const METHODS = 'GET|HEAD|POST|PUT|PATCH|DELETE';

/** The admin API calls a page module makes, as far as its source shows them. */
function callsOf(page: string, source: string): Call[] {
  const calls: Call[] = [];
  // '/literal' or `/template/${with holes}` (a hole may hold quotes, as in a ternary)…
  const literal = String.raw`'(\/[^']*)'|\`((?:\/|\$\{)(?:\$\{[^}]*\}|[^\`])*)\``;
  // …or a name the page gave one: `const path = `/fronting/${…}`;` then `api.send('PATCH', path, …)`.
  const path = String.raw`(?:${literal}|([A-Za-z_$][\w$]*)\s*[,)])`;
  const consts = new Map<string, string[]>();
  for (const m of source.matchAll(
    new RegExp(String.raw`const\s+([A-Za-z_$][\w$]*)\s*=\s*(?:${literal})\s*;`, 'g'),
  ))
    consts.set(m[1] ?? '', [...(consts.get(m[1] ?? '') ?? []), m[2] ?? m[3] ?? '']);
  const add = (method: string, m: RegExpMatchArray, at: number, own: boolean) => {
    const raws = m[at + 2] !== undefined ? (consts.get(m[at + 2] ?? '') ?? []) : [m[at] ?? m[at + 1] ?? ''];
    // A template may start from a named path: `${path}/sessions`.
    const expanded = raws.flatMap((raw) => {
      const head = /^\$\{([A-Za-z_$][\w$]*)\}/.exec(raw);
      if (!head) return raw.startsWith('/') ? [raw] : [];
      return (consts.get(head[1] ?? '') ?? []).map((base) => base + raw.slice(head[0].length));
    });
    for (const raw of expanded) {
      const p = raw.replace(/\?(?![^{]*\}).*$/, '');
      calls.push({ method, path: own ? `own:${p}` : p, page });
    }
  };
  for (const m of source.matchAll(new RegExp(String.raw`api(\.own)?\.(get|href)\(\s*${path}`, 'g')))
    add('GET', m, 3, m[1] !== undefined);
  for (const m of source.matchAll(new RegExp(String.raw`api(\.own)?\.upload\(\s*${path}`, 'g')))
    add('POST', m, 2, m[1] !== undefined);
  for (const m of source.matchAll(
    new RegExp(String.raw`(\.own\.\w+)?\(\s*'(${METHODS})'\s*,\s*${path}`, 'g'),
  ))
    add(m[2] ?? '', m, 3, m[1] !== undefined);
  return calls;
}

/**
 * The pattern of a page's path. A hole that encodes its value (`${encodeURIComponent(id)}`) is one segment
 * or part of one: an encoded value holds no `/`. Any other hole may hold a sub-path (`${LISTS[which]}` is
 * `connect/allowed-return-urls`), so it spans segments — or none (`/fronting${dryRun ? '?dry_run=true' : ''}`).
 */
function pattern(written: string): RegExp {
  let body = '';
  let at = 0;
  for (const hole of written.matchAll(/\$\{([^}]*)\}/g)) {
    body += escaped(written.slice(at, hole.index));
    body += /^encodeURIComponent\(/.test(hole[1] ?? '') ? '[^/]+' : '[^/]*(?:/[^/]+)*';
    at = hole.index + hole[0].length;
  }
  return new RegExp(`^${body}${escaped(written.slice(at))}$`);
}

const escaped = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');

/** A route's path with each `:param` filled in, to test a page's path against. */
const sample = (route: string) =>
  route
    .split('/')
    .map((seg) => (seg.startsWith(':') ? 'x' : seg))
    .join('/');

interface Route {
  method: string;
  /** The path after the prefix the page's `api` adds (`/admin`, or `/v2/admin` for `api.own`). */
  path: string;
  own: boolean;
  key: string;
}

/** The routes a call names. */
function named(call: Call, routes: Route[]): Route[] {
  const own = call.path.startsWith('own:');
  const written = pattern(own ? call.path.slice(4) : call.path);
  return routes.filter((r) => r.method === call.method && r.own === own && written.test(sample(r.path)));
}

/** Reading one item is covered where the page lists them all: `GET /x/:id` (or `/x/:a/:b`) by `GET /x`. */
function readByList(route: Route, covered: Set<string>): boolean {
  const list = route.path.replace(/(\/:[^/]+)+$/, '');
  return (
    route.method === 'GET' && list !== route.path && covered.has(`GET ${route.own ? 'own:' : ''}${list}`)
  );
}

describe('the console offers every admin action', () => {
  it('every admin route (and the translation admin API) is called by a console page', async () => {
    const pages = (await (
      await fetch(`${t.adminUrl}/admin/ui/pages`, { headers: { cookie } })
    ).json()) as Array<{ id: string }>;
    expect(pages.length).toBeGreaterThan(10);
    const calls: Call[] = [];
    for (const { id } of pages) {
      const res = await fetch(`${t.adminUrl}/admin/ui/pages/${id}.js`, { headers: { cookie } });
      expect(res.status).toBe(200);
      calls.push(...callsOf(id, await res.text()));
    }

    const listed = t.hub.routes();
    const routesOf = (listener: string, prefix: string, own: boolean): Route[] =>
      (listed[listener] ?? [])
        // Paths as strings only: the console's own proxy routes are regular expressions.
        .filter((r) => r.path.startsWith(`${prefix}/`) && !r.path.startsWith('/admin/ui'))
        .flatMap((r) =>
          r.methods
            .filter((m) => m !== 'HEAD')
            .map((method) => ({
              method,
              path: r.path.slice(prefix.length),
              own,
              key: `${method} ${r.path}`,
            })),
        );
    const routes = [
      ...routesOf('admin', '/admin', false),
      // Translation's admin API lives on the main listener; its page calls it through api.own.
      ...routesOf('main', '/v2/admin', true),
    ];
    expect(routes.length).toBeGreaterThan(80);
    // Every plugin with admin routes is on: the ones turned on in a test are counted too.
    for (const key of [
      'GET /admin/matter',
      'POST /admin/matter/:site/window',
      'DELETE /admin/matter/:site/fabrics/:fabricIndex',
      'GET /admin/zigbee/sticks',
      'PUT /admin/zigbee/stick',
    ])
      expect(routes.map((r) => r.key)).toContain(key);

    const covered = new Set<string>();
    for (const call of calls)
      for (const r of named(call, routes)) covered.add(`${r.method} ${r.own ? 'own:' : ''}${r.path}`);
    const missing = routes
      .filter((r) => !(r.key in NOT_A_CONSOLE_ACTION))
      .filter((r) => !covered.has(`${r.method} ${r.own ? 'own:' : ''}${r.path}`) && !readByList(r, covered))
      .map((r) => r.key);
    expect(missing).toEqual([]);
  });

  /** Page source as text: `{{x}}` is a template hole (written so, since the linter rightly doubts "${" in a string). */
  const js = (text: string) => text.replaceAll('{{', '$\u007b').replaceAll('}}', '}');

  it('recognises the shapes pages call the API in (the matcher itself can fail)', () => {
    const calls = callsOf(
      'p',
      js(
        [
          "api.get('/sites?limit=5')",
          'api.send(`PATCH`, `/x`)', // a method in backticks is not the shape: ignored
          "api.send('PATCH', `/clients/{{encodeURIComponent(c.id)}}`, body)",
          "act('DELETE', `/grants/{{kind}}/{{id}}`)",
          "api.own.send('PUT', '/developer-keys/label', {})",
          "api.upload('/restore', f, 'application/gzip')",
          "api.href('/backup')",
          'const path = `/fronting/{{encodeURIComponent(a)}}/{{encodeURIComponent(b)}}`;',
          "await api.send('PATCH', path, { scope_map })",
          "api.send('DELETE', unknownName)",
          "api.send('DELETE', `{{path}}/sessions`)",
          'api.get(`{{unknownName}}/x`)',
        ].join('\n'),
      ),
    );
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /sites',
      'GET /backup',
      'POST /restore',
      js('PATCH /clients/{{encodeURIComponent(c.id)}}'),
      js('DELETE /grants/{{kind}}/{{id}}'),
      'PUT own:/developer-keys/label',
      js('PATCH /fronting/{{encodeURIComponent(a)}}/{{encodeURIComponent(b)}}'),
      js('DELETE /fronting/{{encodeURIComponent(a)}}/{{encodeURIComponent(b)}}/sessions'),
    ]);
    const route = (method: string, path: string): Route => ({ method, path, own: false, key: path });
    const routes = [
      route('PATCH', '/clients/:id'),
      route('PATCH', '/clients/:id/enable'),
      route('DELETE', '/resources/:slug/policy/connect/allowed-return-urls'),
      route('DELETE', '/resources/:slug/policy/exchange/allowed-clients/:client_id'),
      route('DELETE', '/grants/consent/:id'),
      route('POST', '/resources/:slug/policy/connect/allowed-return-urls'),
      route('GET', '/sites/:id'),
    ];
    const names = (method: string, path: string) =>
      named({ method, path, page: 'p' }, routes).map((r) => r.path);
    expect(names('PATCH', js('/clients/{{encodeURIComponent(c.id)}}'))).toEqual(['/clients/:id']);
    expect(names('POST', js('/fronting{{dry ? "?dry_run=true" : ""}}'))).toEqual([]);
    expect(names('PATCH', js('/clients/{{encodeURIComponent(id)}}/{{verb}}'))).toEqual([
      '/clients/:id/enable',
    ]);
    // An unencoded hole may be a sub-path; an encoded one is one segment.
    expect(
      names('DELETE', js('/resources/{{enc(r.slug)}}/policy/{{LISTS[which]}}/{{encodeURIComponent(id)}}')),
    ).toEqual([
      // Also the connect list's route: `connect` and `allowed-return-urls` fill the two holes as well.
      '/resources/:slug/policy/connect/allowed-return-urls',
      '/resources/:slug/policy/exchange/allowed-clients/:client_id',
    ]);
    expect(names('PATCH', js('/clients/{{id}}'))).toEqual(['/clients/:id', '/clients/:id/enable']);
    expect(names('DELETE', js('/grants/{{kind}}/{{id}}'))).toEqual(['/grants/consent/:id']);
    expect(names('POST', js('/resources/{{r.slug}}/policy/{{LISTS[which]}}'))).toEqual([
      '/resources/:slug/policy/connect/allowed-return-urls',
    ]);
    expect(names('GET', '/sites')).toEqual([]);
    expect(readByList(route('GET', '/sites/:id'), new Set(['GET /sites']))).toBe(true);
    expect(readByList(route('GET', '/sites/:id'), new Set(['GET /clients']))).toBe(false);
    expect(readByList(route('GET', '/fronting/:source/:target'), new Set(['GET /fronting']))).toBe(true);
    expect(readByList(route('GET', '/users/:id/tokens'), new Set(['GET /users']))).toBe(false);
  });
});
