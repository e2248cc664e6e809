import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHub, adminClient, type MadeClient, siteResourceUri, startAuthHub } from './helpers.ts';

/**
 * POST /oauth/token is served ahead of the auth listener's Koa stack (the exact path) and by its router (any
 * other spelling, e.g. a trailing slash): both answer alike, in headers, errors and rate limiting. Client
 * secrets verified once are remembered per process; a rotated secret, a suspended or a removed client must
 * still be refused at once.
 */
let h: AuthHub;
let site: string;

beforeAll(async () => {
  h = await startAuthHub();
  site = await siteResourceUri(h);
});
afterAll(() => h?.stop());

const basic = (c: MadeClient, secret = c.client_secret!) =>
  `Basic ${Buffer.from(`${c.client_id}:${secret}`).toString('base64')}`;

async function token(path: string, auth: string, body: Record<string, string>, headers = {}) {
  const res = await fetch(`${h.auth}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'x-request-id': 'req-direct-1', ...headers },
    body: new URLSearchParams(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

const ccBody = () => ({ grant_type: 'client_credentials', resource: site });

describe('the token endpoint served without Koa', () => {
  it('answers the exact path as the router answers its other spellings', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    for (const path of ['/oauth/token', '/oauth/token/']) {
      const r = await token(path, basic(c), ccBody());
      expect(r.status, path).toBe(200);
      expect(r.json).toMatchObject({
        token_type: 'Bearer',
        expires_in: expect.any(Number),
        scope: 'lights:read',
      });
      expect(r.headers.get('cache-control')).toBe('no-store'); // RFC 6749 §5.1
      expect(r.headers.get('pragma')).toBe('no-cache');
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-request-id')).toBe('req-direct-1');
    }
    const lines = h.logs.filter((l) => l.msg === 'request' && l.url === '/oauth/token');
    expect(lines.at(-1)).toMatchObject({ method: 'POST', status: 200, reqId: 'req-direct-1' });
    // Secrets never reach a log line.
    expect(JSON.stringify(h.logs)).not.toContain(c.client_secret!);
  });

  it('answers errors in the OAuth shape on both', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    for (const path of ['/oauth/token', '/oauth/token/']) {
      const wrong = await token(path, basic(c, 'not-the-secret'), ccBody());
      expect(wrong.status, path).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="hearth"'); // RFC 6749 §5.2
      expect(wrong.headers.get('cache-control')).toBe('no-store');
      expect(wrong.json).toMatchObject({ error: 'invalid_client', status: 401 });
      expect(JSON.stringify(wrong.json)).not.toContain('not-the-secret');
      const missing = await token(path, basic(c), { resource: site });
      expect(missing.status).toBe(400);
      expect(missing.json).toMatchObject({
        error: 'invalid_request',
        error_description: 'missing parameter grant_type',
      });
      const unsupported = await token(path, basic(c), { grant_type: 'password' });
      expect(unsupported.json.error).toBe('unsupported_grant_type');
      const json = await fetch(`${h.auth}${path}`, {
        method: 'POST',
        headers: { authorization: basic(c), 'content-type': 'application/json' },
        body: JSON.stringify(ccBody()),
      });
      expect(json.status).toBe(400);
      expect(((await json.json()) as { error: string }).error).toBe('invalid_request');
    }
  });

  it('refuses a form over 64 KiB with invalid_request', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const r = await token('/oauth/token', basic(c), { ...ccBody(), pad: 'x'.repeat(70_000) });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_request');
  });
});

describe('remembered client secrets', () => {
  it('a rotated secret is refused at once, the new one accepted', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(200);
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(200);
    const rotated = (await h.admin('POST', `/admin/clients/${c.client_id}/rotate-secret`)).body as {
      client_secret: string;
    };
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(401);
    expect((await token('/oauth/token', basic(c, rotated.client_secret), ccBody())).status).toBe(200);
    // Introspection authenticates the same way.
    const intro = await fetch(`${h.auth}/oauth/introspect`, {
      method: 'POST',
      headers: { authorization: basic(c) },
      body: new URLSearchParams({ token: 'x' }),
    });
    expect(intro.status).toBe(401);
  });

  it('a suspended client is refused at once and works again when reactivated', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(200);
    expect((await h.admin('PATCH', `/admin/clients/${c.client_id}/suspend`)).status).toBe(200);
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(401);
    expect((await h.admin('PATCH', `/admin/clients/${c.client_id}/reactivate`)).status).toBe(200);
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(200);
  });

  it('a removed client is refused at once', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(200);
    expect((await h.admin('DELETE', `/admin/clients/${c.client_id}?force=true`)).status).toBe(204);
    const r = await token('/oauth/token', basic(c), ccBody());
    expect(r.status).toBe(401);
    expect(r.json.error).toBe('invalid_client');
  });

  it('one client’s remembered secret does not authenticate another', async () => {
    const a = await adminClient(h, { scope: 'lights:read' });
    const b = await adminClient(h, { scope: 'lights:read' });
    expect((await token('/oauth/token', basic(a), ccBody())).status).toBe(200);
    expect((await token('/oauth/token', basic(b, a.client_secret), ccBody())).status).toBe(401);
  });
});

describe('client-authentication failures per address', () => {
  it('meet 429 slow_down with Retry-After on the direct route, the right secret too', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    let limited: Awaited<ReturnType<typeof token>> | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const r = await token('/oauth/token', basic(c, `wrong-${i}`), ccBody());
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(401);
    }
    expect(limited?.json.error).toBe('slow_down');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await token('/oauth/token', basic(c), ccBody())).status).toBe(429);
  });
});
