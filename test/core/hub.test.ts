import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../core/http/errors.ts';
import type { HearthRouter } from '../../core/http/types.ts';
import { definePlugin } from '../../core/plugin/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { echoPlugin } from './fixtures/plugins.ts';

describe('the core hub on port 0', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ extraPlugins: [echoPlugin], config: { http: { bodyLimit: '1kb' } } });
  });
  afterAll(() => t.stop());

  it('answers /livez, /health and /ready', async () => {
    expect((await fetch(`${t.url}/livez`)).status).toBe(200);
    const health = (await (await fetch(`${t.url}/health`)).json()) as { status: string; version: string };
    expect(health).toMatchObject({ status: 'ok', version: '0.1.0' });
    const ready = (await (await fetch(`${t.url}/ready`)).json()) as { status: string; plugins: unknown[] };
    expect(ready.status).toBe('ready');
    expect(ready.plugins).toEqual([
      { name: 'echo', version: '1.0.0', status: 'running', health: { status: 'ok' } },
    ]);
  });

  it('passes the plugin its config slice with defaults applied', async () => {
    expect(await (await fetch(`${t.url}/echo`)).json()).toEqual({ greeting: 'hi' });
  });

  it('parses JSON and answers malformed JSON with 400 in the router’s shape', async () => {
    const ok = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await ok.json()).toEqual({ got: { a: 1 } });
    const bad = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: 'Request body is not valid JSON' });
  });

  it('answers a body that is not what its Content-Encoding says with 400, and a gzip bomb with 413', async () => {
    const notGzip = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{"a":1}',
    });
    expect(notGzip.status).toBe(400);
    expect(await notGzip.json()).toEqual({ message: 'Request body does not match its Content-Encoding' });
    const gzipped = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"a":1}'),
    });
    expect(await gzipped.json()).toEqual({ got: { a: 1 } });
    // 60 bytes on the wire, 4 KB once inflated: the limit applies to what the parser would read.
    const bomb = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ pad: 'x'.repeat(4000) })),
    });
    expect(bomb.status).toBe(413);
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(4000) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: 'Request body is too large' });
  });

  it('answers unknown paths with a JSON 404 and wrong methods with 405 + Allow', async () => {
    const nf = await fetch(`${t.url}/nothing-here`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toEqual({ error: 'not_found', message: 'No route for GET /nothing-here' });
    const na = await fetch(`${t.url}/echo`, { method: 'DELETE' });
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('never leaks a 5xx cause', async () => {
    const res = await fetch(`${t.url}/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret internal detail');
    expect(JSON.parse(text)).toEqual({ message: 'Internal server error' });
  });

  it('sets security headers on HTML and a request id on everything', async () => {
    const res = await fetch(`${t.url}/page`);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('guards the admin listener with the admin key', async () => {
    const none = await fetch(`${t.adminUrl}/admin/echo`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: 'invalid_admin_key' });
    const wrong = await fetch(`${t.adminUrl}/admin/echo`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect((await t.admin('GET', '/admin/echo')).body).toEqual({ ok: true });
    expect((await t.admin('POST', '/admin/auth/verify')).body).toEqual({ valid: true, version: '0.1.0' });
    // The admin listener serves only /admin/... and /metrics.
    expect((await t.admin('GET', '/echo')).status).toBe(404);
  });

  it('serves Prometheus metrics behind basic auth (the admin key is the default password)', async () => {
    const anon = await fetch(`${t.adminUrl}/metrics`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('Basic');
    const auth = Buffer.from(`metrics:${t.adminKey}`).toString('base64');
    const res = await fetch(`${t.adminUrl}/metrics`, { headers: { authorization: `Basic ${auth}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/^hearth_plugin_up\{plugin="echo"\} 1$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^hearth_store_writes_total\{file="core.admin.json"\} [1-9]\d*$/m);
  });

  it('rotates the admin key: the old one stops working at once', async () => {
    const res = await t.admin('POST', '/admin/admin-key/rotate');
    const key = (res.body as { key: string }).key;
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await t.admin('POST', '/admin/auth/verify')).status).toBe(401);
    const fresh = await fetch(`${t.adminUrl}/admin/auth/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(fresh.status).toBe(200);
    t.adminKey = key;
  });
});

describe('hub lifecycle', () => {
  it('stops cleanly: listeners closed, a second start on the same data dir works', async () => {
    const t = await startTestHub({ extraPlugins: [echoPlugin] });
    const url = t.url;
    await t.stop({ keepData: true });
    await expect(fetch(`${url}/livez`)).rejects.toThrow();
    const again = await startTestHub({
      extraPlugins: [echoPlugin],
      dataDir: t.dataDir,
      adminKey: t.adminKey,
    });
    expect((await fetch(`${again.url}/livez`)).status).toBe(200);
    await again.stop();
  });

  it('refuses a second hub on the same data dir', async () => {
    const t = await startTestHub({ extraPlugins: [echoPlugin] });
    await expect(startTestHub({ extraPlugins: [echoPlugin], dataDir: t.dataDir })).rejects.toThrow(
      /already runs a hub/,
    );
    await t.stop();
  });

  it('generates an admin key on first start, prints it once, stores only its hash', async () => {
    const { readFileSync } = await import('node:fs');
    const t = await startTestHub({});
    // startTestHub passes an explicit key; a hub without one generates and prints it.
    await t.stop();
    const { Hub } = await import('../../core/hub.ts');
    const { readConfigSources, validateConfig } = await import('../../core/config/load.ts');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/hearth-key-`);
    const overrides = {
      dataDir: dir,
      host: '127.0.0.1',
      log: { level: 'silent' },
      http: { main: { port: 0 }, admin: { port: 0 } },
      mqtt: { port: 0 },
    };
    const config = validateConfig(readConfigSources({ env: {}, overrides }), []);
    const printed: string[] = [];
    const hub = new Hub({ config, plugins: [], print: (l) => printed.push(l) });
    const info = await hub.start();
    expect(info.generatedAdminKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(printed.join('\n')).toContain(info.generatedAdminKey as string);
    await hub.stop();
    const stored = readFileSync(`${dir}/core.admin.json`, 'utf8');
    expect(stored).not.toContain(info.generatedAdminKey as string);
    const printed2: string[] = [];
    const hub2 = new Hub({ config, plugins: [], print: (l) => printed2.push(l) });
    const info2 = await hub2.start();
    expect(info2.generatedAdminKey).toBeNull();
    expect(printed2.join('\n')).not.toMatch(/Admin key/);
    const res = await fetch(`${info2.urls.admin}/admin/auth/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.generatedAdminKey}` },
    });
    expect(res.status).toBe(200);
    await hub2.stop();
  });
});

describe('routers that own path prefixes', () => {
  it('skip other paths, and answer 404/405 inside their paths in their own error shape with the path scrubbed', async () => {
    const owned = definePlugin({
      name: 'owned',
      version: '1.0.0',
      description: 'test plugin: owns /api/site',
      configSchema: { type: 'object', properties: {} },
      async start(ctx) {
        const r = ctx.http.router('main', { prefix: '/api/site', errorBody: ({ message }) => ({ message }) });
        r.get('/:key/light', (k) => {
          k.body = [];
        });
        return { stop() {} };
      },
    });
    const t = await startTestHub({ extraPlugins: [owned] });
    const key = 'Zq9-owned-site-key-0123456789';
    const wrongMethod = await fetch(`${t.url}/api/site/${key}/light`, { method: 'PATCH' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect(await wrongMethod.json()).toEqual({
      message: 'PATCH is not allowed on /api/site/[REDACTED]/light',
    });
    const unknown = await fetch(`${t.url}/api/site/${key}/nothing`);
    expect(await unknown.json()).toEqual({ message: 'No route for GET /api/site/[REDACTED]/nothing' });
    // Outside its prefix the core's shape applies; `/api/sites` is not under `/api/site`.
    expect(await (await fetch(`${t.url}/api/sites`)).json()).toEqual({
      error: 'not_found',
      message: 'No route for GET /api/sites',
    });
    await t.stop();
  });

  it('match routes added after requests were served, keep each router’s error shape, and read a body once', async () => {
    let late: HearthRouter | null = null;
    const routers = definePlugin({
      name: 'routers',
      version: '1.0.0',
      description: 'test plugin: a catch-all router with its own shape, then a prefixed one',
      configSchema: { type: 'object', properties: {} },
      async start(ctx) {
        // No prefix: it sees every request, and must not lend its shape to requests it passes on.
        const everywhere = ctx.http.router('main', { errorBody: ({ message }) => ({ oops: message }) });
        everywhere.get('/mine/fail', () => {
          throw new HttpError(409, 'conflict', 'mine failed');
        });
        late = ctx.http.router('main', { prefix: '/late', errorBody: ({ message }) => ({ message }) });
        late.put('/echo', (k, next) => {
          k.state.firstSaw = (k.request as unknown as { body: unknown }).body;
          return next();
        });
        late.put('/echo', (k) => {
          k.body = { first: k.state.firstSaw, second: (k.request as unknown as { body: unknown }).body };
        });
        return { stop() {} };
      },
    });
    const t = await startTestHub({ extraPlugins: [routers] });
    expect(await (await fetch(`${t.url}/mine/fail`)).json()).toEqual({ oops: 'mine failed' });
    // Hundreds of distinct paths (more than the router remembers) before and after a route is added.
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${t.url}/late/thing-${i}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: `No route for GET /late/thing-${i}` });
    }
    expect((await fetch(`${t.url}/late/thing-7`)).status).toBe(404); // remembered as unmatched
    late!.get('/thing-7', (k) => {
      k.body = { added: true };
    });
    expect(await (await fetch(`${t.url}/late/thing-7`)).json()).toEqual({ added: true });
    expect((await fetch(`${t.url}/late/thing-8`)).status).toBe(404);
    // Two matching routes for one request: the second sees the same parsed body (the stream is read once).
    const echo = await fetch(`${t.url}/late/echo`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(await echo.json()).toEqual({ first: { n: 1 }, second: { n: 1 } });
    await t.stop();
  });
});
