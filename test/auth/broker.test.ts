import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dataFileTexts } from '../helpers/data-files.ts';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  login,
  startAuthHub,
} from './helpers.ts';
import { startUpstreamProvider, type UpstreamProvider } from './upstream-provider.ts';

// Credential brokering against a real OAuth provider on loopback (oidc-provider): broker providers and
// resources, the connect flow, connections, broker grants, and brokered tokens by token exchange.

const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const BROKER_SECRET = 's3cr3t-of-the-broker-client';
const RETURN = 'http://127.0.0.1:9999/connected';

let up: UpstreamProvider;
let h: AuthHub;
let user: { id: string; email: string; password: string };
let providerId: string;
let photos: { id: string; uri: string; slug: string };
/** Every response body Hearth sent outside the token exchange answers (searched for upstream tokens). */
const seen: string[] = [];

class RecordingBrowser extends Browser {
  override async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await super.fetch(url, init);
    if (new URL(url, this.base).origin === new URL(h.auth).origin)
      seen.push(await res.clone().text(), JSON.stringify([...res.headers]));
    return res;
  }
}

async function adminRaw(method: string, p: string, text?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(new URL(p, h.adminUrl), {
    method,
    headers: {
      authorization: `Bearer ${h.adminKey}`,
      ...(text === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(text === undefined ? {} : { body: text }),
  });
  const body = await res.text();
  seen.push(body);
  return { status: res.status, text: body };
}

async function admin(method: string, p: string, body?: unknown) {
  const res = await h.admin(method, p, body);
  seen.push(JSON.stringify(res.body));
  return res;
}

/** Follows redirects through the provider; stops at the first redirect that leaves both servers. */
async function follow(b: Browser, start: string): Promise<Response> {
  let url = new URL(start, h.auth).href;
  for (let i = 0; i < 12; i++) {
    const res = await b.fetch(url);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return res;
    const next = new URL(location, url);
    if (next.origin !== new URL(h.auth).origin && next.origin !== up.issuer) return res;
    url = next.href;
  }
  throw new Error('too many redirects');
}

// Spacing, key order, a number beyond double precision, an escape and a trailing 0: all must survive.
const CONFIG = `{ "client_id" : "hearth-broker",
  "client_secret":"${BROKER_SECRET}", "scopes": ["openid"],
  "authorization_endpoint": "AUTHZ", "token_endpoint": "TOKEN",
  "big": 123456789012345678901234567890, "f": 1.50, "u": "caf\\u00e9", "n": [ {} , [ ] ] }`;

beforeAll(async () => {
  up = await startUpstreamProvider();
  h = await startAuthHub();
  user = await adminUser(h, 'ann@home.test');
  await up.configure([
    {
      client_id: 'hearth-broker',
      client_secret: BROKER_SECRET,
      redirect_uris: [`${h.auth}/connect/photos/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ]);
});

afterAll(async () => {
  await h?.stop();
  await up?.close();
});

describe('broker providers (admin)', () => {
  test('config_data is returned byte for byte by POST, GET and PATCH, and its secret is sealed at rest', async () => {
    const config = CONFIG.replace('AUTHZ', `${up.issuer}/auth`).replace('TOKEN', `${up.issuer}/token`);
    const created = await adminRaw(
      'POST',
      '/admin/broker-providers',
      `{"slug":"photos","display_name":"Photo Cloud","protocol":"oauth2","config_data":${config}}`,
    );
    expect(created.status, created.text).toBe(201);
    expect(created.text).toContain(`"config_data":${config},`);
    const view = JSON.parse(created.text) as Record<string, unknown>;
    providerId = view.id as string;
    expect(Object.keys(view)).toEqual([
      'id',
      'slug',
      'display_name',
      'protocol',
      'config_data',
      'created_at',
      'updated_at',
    ]);
    for (const p of [`/admin/broker-providers/${providerId}`, '/admin/broker-providers?slug=photos'])
      expect((await adminRaw('GET', p)).text).toContain(`"config_data":${config},`);
    expect((await adminRaw('GET', '/admin/broker-providers?slug=other')).text).toBe('[]');

    const renamed = await adminRaw(
      'PATCH',
      `/admin/broker-providers/${providerId}`,
      '{"display_name":"Photos"}',
    );
    expect(renamed.status).toBe(200);
    expect(renamed.text).toContain(`"config_data":${config},`);
    expect(renamed.text).toContain('"display_name":"Photos"');
    for (const f of dataFileTexts(h.dataDir)) expect(f.text, f.name).not.toContain(BROKER_SECRET);
    expect((await adminRaw('GET', `/admin/broker-providers/${providerId}`)).text).toContain(
      `"config_data":${config},`,
    );
  });

  test('refusals: missing config_data, taken slug, non-JSON, unknown and Object.prototype ids', async () => {
    const post = (t: string) => adminRaw('POST', '/admin/broker-providers', t);
    expect((await post('{"slug":"x","display_name":"X","protocol":"oauth2"}')).status).toBe(400);
    const taken = await post('{"slug":"photos","display_name":"X","protocol":"oauth2","config_data":{}}');
    expect(taken.status).toBe(409);
    expect(JSON.parse(taken.text)).toMatchObject({ error: 'broker_provider_exists' });
    expect((await post('{"slug":"x",')).status).toBe(400);
    const text = await fetch(new URL('/admin/broker-providers', h.adminUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    for (const id of ['nope', 'constructor', '__proto__', 'toString']) {
      expect((await adminRaw('GET', `/admin/broker-providers/${id}`)).status).toBe(404);
      expect((await adminRaw('DELETE', `/admin/broker-providers/${id}`)).status).toBe(404);
      expect((await adminRaw('DELETE', `/admin/grants/broker/${id}`)).status).toBe(404);
    }
    expect(
      (await post(`{"slug":"big","display_name":"B","protocol":"x","config_data":"${'a'.repeat(70_000)}"}`))
        .status,
    ).toBe(413);
  });
});

describe('broker resources', () => {
  test('a broker resource names its provider by id or slug; mint and broker rules; minted grants refuse it', async () => {
    const base = { uri: '', display_name: 'Photos', scopes: [{ name: 'photos:read', upstream: 'profile' }] };
    const bad = [
      { ...base, slug: 'p1', backend_kind: 'broker' },
      { ...base, slug: 'p2', backend_kind: 'broker', broker_provider_slug: 'nope' },
      {
        ...base,
        slug: 'p3',
        backend_kind: 'broker',
        broker_provider_id: 'other',
        broker_provider_slug: 'photos',
      },
      { ...base, slug: 'p4', backend_kind: 'mint', broker_provider_slug: 'photos' },
      { ...base, slug: 'p5', backend_kind: 'mint' },
    ];
    for (const body of bad)
      expect((await admin('POST', '/admin/resources', body)).status, body.slug).toBe(400);
    const made = await admin('POST', '/admin/resources', {
      ...base,
      slug: 'photos',
      backend_kind: 'broker',
      broker_provider_id: providerId,
      broker_provider_slug: 'photos',
      scopes: [
        { name: 'photos:read', upstream: 'profile' },
        { name: 'photos:email', upstream: 'email' },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    photos = made.body as typeof photos;
    expect(made.body).toMatchObject({
      backend_kind: 'broker',
      broker_provider_id: providerId,
      policy: { connect: { allowed_return_urls: [] } },
    });
    const allowed = await admin('POST', '/admin/resources/photos/policy/connect/allowed-return-urls', {
      url: RETURN,
    });
    expect(allowed.status).toBe(201);
    // The provider is in use now.
    expect((await adminRaw('DELETE', `/admin/broker-providers/${providerId}`)).status).toBe(409);

    // A minted token for it does not exist: client credentials are refused with invalid_target.
    const machine = await adminClient(h, { scope: 'photos:read' });
    const cc = await fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${machine.client_id}:${machine.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: photos.uri }),
    });
    expect(cc.status).toBe(400);
    expect(((await cc.json()) as { error: string }).error).toBe('invalid_target');
  });
});

describe('connect, connections and broker grants', () => {
  let app: { id: string; config: oidc.Configuration };
  let subject: string;

  beforeAll(async () => {
    const c = await adminClient(h, {
      client_name: 'assistant',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', TE],
      response_types: ['code'],
      application_type: 'native',
    });
    const config = await oidc.discovery(
      new URL(h.auth),
      c.client_id,
      undefined,
      oidc.ClientSecretBasic(c.client_secret!),
      {
        execute: [oidc.allowInsecureRequests],
        algorithm: 'oauth2',
      },
    );
    app = { id: c.client_id, config };
    const flow = await codeRequest(config, { resource: 'urn:hearth:translation', scope: 'translate' });
    const callback = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    subject = (
      await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
      })
    ).access_token;
  });

  const exchange = () =>
    oidc.genericGrantRequest(app.config, TE, {
      subject_token: subject,
      subject_token_type: AT,
      resource: photos.uri,
    });

  test('before connecting, a brokered token is consent_required with the connect page', async () => {
    const err = await exchange().catch(
      (e: unknown) => e as { error: string; cause: Record<string, unknown> },
    );
    expect(err).toMatchObject({ error: 'consent_required' });
    expect((err as { cause: Record<string, unknown> }).cause).toMatchObject({
      cause: 'consent_missing',
      consent_url: `${h.auth}/connect/photos?resource=photos`,
    });
  });

  test('a signed-in user connects: back to the allowed return URL, grant v1 sealed and listed; again is v2', async () => {
    const b = new RecordingBrowser(h.auth);
    // Without a session the connect page sends the browser to sign in first, and back.
    const first = await b.fetch(`/connect/photos?resource=photos&return_url=${encodeURIComponent(RETURN)}`);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/^\/login\?redirect=%2Fconnect%2Fphotos/);
    await login(b, user.email, user.password);
    // The loopback port may differ from the listed URL (RFC 8252 §7.3).
    const other = 'http://127.0.0.1:4321/connected';
    const done = await follow(b, `/connect/photos?resource=photos&return_url=${encodeURIComponent(other)}`);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(other);

    const list = (await (await b.fetch('/connections')).json()) as {
      connections: Array<Record<string, unknown>>;
    };
    expect(list.connections).toEqual([
      expect.objectContaining({ provider: 'photos', broker_provider_id: providerId, version: 1 }),
    ]);
    const grants = (await admin('GET', `/admin/users/${user.id}/grants`)).body as {
      broker_grants: Array<Record<string, unknown>>;
    };
    expect(grants.broker_grants).toHaveLength(1);
    const g = grants.broker_grants[0]!;
    expect(g).toMatchObject({
      user_id: user.id,
      broker_provider_id: providerId,
      version: 1,
      enc_backend: 'aes-256-gcm',
    });
    expect(Object.keys(g).sort()).toEqual(
      [
        'broker_provider_id',
        'created_at',
        'enc_backend',
        'id',
        'scopes_granted',
        'updated_at',
        'user_id',
        'version',
      ].sort(),
    );
    expect(((await admin('GET', '/admin/stats')).body as { connections: number }).connections).toBe(1);

    await follow(b, '/connect/photos?resource=photos');
    const again = (await admin('GET', `/admin/users/${user.id}/grants`)).body as typeof grants;
    expect(again.broker_grants).toHaveLength(1);
    expect(again.broker_grants[0]).toMatchObject({ id: g.id, version: 2 });
  });

  test('token exchange vends the upstream token (backend_kind broker) and refreshes it when it expires', async () => {
    const out = await exchange();
    expect(out).toMatchObject({ issued_token_type: AT, token_type: 'bearer' });
    expect(up.issuedTokens).toContain(out.access_token);
    const iss = (await admin('GET', `/admin/issuances?resource=${photos.id}`)).body as {
      issuances: Array<Record<string, unknown>>;
    };
    expect(iss.issuances[0]).toMatchObject({ backend_kind: 'broker', revocable: false, client_id: app.id });

    // The stored upstream token is about to expire: the next exchange refreshes it upstream first.
    up.tamper = async (body) => {
      body.expires_in = 1;
    };
    const b = new RecordingBrowser(h.auth);
    await login(b, user.email, user.password);
    await follow(b, '/connect/photos?resource=photos');
    up.tamper = null;
    const before = up.issuedTokens.length;
    const fresh = await exchange();
    expect(up.issuedTokens.length).toBeGreaterThan(before);
    expect(up.issuedTokens).toContain(fresh.access_token);
    expect(fresh.access_token).not.toBe(out.access_token);
    const g = (
      (await admin('GET', `/admin/users/${user.id}/grants`)).body as {
        broker_grants: Array<{ version: number }>;
      }
    ).broker_grants[0]!;
    expect(g.version).toBe(4);
  });

  test('negative: a return URL not allowed, a replayed callback, a callback for another user', async () => {
    const b = new RecordingBrowser(h.auth);
    await login(b, user.email, user.password);
    for (const url of [
      'https://evil.example/steal',
      'http://127.0.0.1:9999/connected/x',
      'http://localhost:9999/connected',
    ]) {
      const res = await b.fetch(`/connect/photos?resource=photos&return_url=${encodeURIComponent(url)}`);
      expect(res.status, url).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    // A return URL without a resource has no policy to allow it.
    expect((await b.fetch(`/connect/photos?return_url=${encodeURIComponent(RETURN)}`)).status).toBe(400);

    // Replayed callback.
    const start = await b.fetch('/connect/photos?resource=photos');
    let url = start.headers.get('location')!;
    let callback = '';
    for (let i = 0; i < 10 && !callback; i++) {
      const r = await b.fetch(url);
      const next = new URL(r.headers.get('location')!, url);
      if (next.pathname === '/connect/photos/callback') callback = next.href;
      url = next.href;
    }
    expect((await b.fetch(callback)).status).toBe(200);
    const replay = await b.fetch(callback);
    expect(replay.status).toBe(400);

    // Another signed-in user cannot complete Ann's connection.
    const bob = await adminUser(h, 'bob@home.test');
    const s2 = await b.fetch('/connect/photos?resource=photos');
    url = s2.headers.get('location')!;
    callback = '';
    for (let i = 0; i < 10 && !callback; i++) {
      const r = await b.fetch(url);
      const next = new URL(r.headers.get('location')!, url);
      if (next.pathname === '/connect/photos/callback') callback = next.href;
      url = next.href;
    }
    const bobBrowser = new RecordingBrowser(h.auth);
    await login(bobBrowser, bob.email, bob.password);
    for (const [k, v] of b.cookies) if (k.includes('flow')) bobBrowser.cookies.set(k, v);
    expect((await bobBrowser.fetch(callback)).status).toBe(400);
    const bobGrants = (await admin('GET', `/admin/users/${bob.id}/grants`)).body as {
      broker_grants: unknown[];
    };
    expect(bobGrants.broker_grants).toEqual([]);
  });

  test('DELETE /connections/{provider} and DELETE /admin/grants/broker/{id} revoke; without a session 401', async () => {
    expect((await fetch(`${h.auth}/connections`)).status).toBe(401);
    const b = new RecordingBrowser(h.auth);
    await login(b, user.email, user.password);
    expect((await b.fetch('/connections/photos', { method: 'DELETE' })).status).toBe(204);
    expect((await b.fetch('/connections/photos', { method: 'DELETE' })).status).toBe(404);
    const list = (await (await b.fetch('/connections')).json()) as { connections: unknown[] };
    expect(list.connections).toEqual([]);
    const err = await exchange().catch((e: unknown) => e as { error: string });
    expect(err).toMatchObject({ error: 'consent_required' });

    await follow(b, '/connect/photos?resource=photos');
    const grants = (await admin('GET', `/admin/users/${user.id}/grants`)).body as {
      broker_grants: Array<{ id: string; revoked_at?: string }>;
    };
    const live = grants.broker_grants.find((g) => !g.revoked_at)!;
    expect((await adminRaw('DELETE', `/admin/grants/broker/${live.id}`)).status).toBe(204);
    expect((await adminRaw('DELETE', `/admin/grants/broker/${live.id}`)).status).toBe(204);
    const after = (await admin('GET', `/admin/users/${user.id}/grants`)).body as typeof grants;
    expect(after.broker_grants.every((g) => g.revoked_at)).toBe(true);
  });

  test('no admin or page response carries an upstream token; no log line or data file carries one or the client secret', async () => {
    expect(up.issuedTokens.length).toBeGreaterThan(4);
    // Sealed tokens are known to the log redaction one by one: a token alone in a log line is scrubbed.
    const stored = up.issuedTokens.filter((x) => !x.startsWith('eyJ')).at(-1)!;
    h.hub.log.warn({ leaked: `upstream said ${stored}` }, 'a careless line');
    await expect.poll(() => h.logs.some((l) => l.msg === 'a careless line')).toBe(true);
    const careless = h.logs.find((l) => l.msg === 'a careless line');
    expect(JSON.stringify(careless)).not.toContain(stored);
    const logs = JSON.stringify(h.logs);
    const responses = seen.join('\n');
    const files = dataFileTexts(h.dataDir)
      .map((f) => f.text)
      .join('\n');
    for (const t of [...up.issuedTokens, BROKER_SECRET]) {
      expect(logs.includes(t)).toBe(false);
      expect(files.includes(t)).toBe(false);
      // The client secret is part of config_data, which the admin API returns as sent (spec).
      if (t !== BROKER_SECRET) expect(responses.includes(t)).toBe(false);
    }
  });
});
