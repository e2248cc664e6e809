import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AuthHub, adminClient, discover, siteResourceUri, startAuthHub } from './helpers.ts';

let h: AuthHub;
let as: oauth.AuthorizationServer;
let site: string;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  h = await startAuthHub();
  as = await discover(h);
  site = await siteResourceUri(h);
});
afterAll(async () => {
  await h?.stop();
});

async function machine(scope = 'lights:read lights:write') {
  const c = await adminClient(h, { scope });
  const config = await client.discovery(
    new URL(h.auth),
    c.client_id,
    undefined,
    client.ClientSecretBasic(c.client_secret!),
    {
      execute: [client.allowInsecureRequests],
      algorithm: 'oauth2',
    },
  );
  const token = (await client.clientCredentialsGrant(config, { resource: site })).access_token;
  return { ...c, config, token };
}

describe('introspection (RFC 7662, caller-restricted)', () => {
  test('the issuing client sees the token active with its claims', async () => {
    const m = await machine();
    const r = await client.tokenIntrospection(m.config, m.token);
    expect(r).toMatchObject({
      active: true,
      client_id: m.client_id,
      aud: site,
      scope: 'lights:read lights:write',
      iss: h.auth,
    });
  });

  test('another client sees active:false unless it is in the resource runtime list', async () => {
    const a = await machine();
    const b = await machine();
    expect((await client.tokenIntrospection(b.config, a.token)).active).toBe(false);
    const res = (await h.admin('GET', '/admin/resources')).body as Array<{ slug: string; uri: string }>;
    const slug = res.find((x) => x.uri === site)!.slug;
    const add = await h.admin('POST', `/admin/resources/${slug}/policy/runtime/client-ids`, {
      client_id: b.client_id,
    });
    expect(add.status).toBe(201);
    expect((await client.tokenIntrospection(b.config, a.token)).active).toBe(true);
    expect(
      (await h.admin('DELETE', `/admin/resources/${slug}/policy/runtime/client-ids/${b.client_id}`)).status,
    ).toBe(204);
    expect((await client.tokenIntrospection(b.config, a.token)).active).toBe(false);
  });

  test('a token of a suspended client is inactive, as the in-process verifier says', async () => {
    const a = await machine();
    const rs = await machine();
    const res = (await h.admin('GET', '/admin/resources')).body as Array<{ slug: string; uri: string }>;
    const slug = res.find((x) => x.uri === site)!.slug;
    await h.admin('POST', `/admin/resources/${slug}/policy/runtime/client-ids`, { client_id: rs.client_id });
    try {
      expect((await client.tokenIntrospection(rs.config, a.token)).active).toBe(true);
      await h.admin('PATCH', `/admin/clients/${a.client_id}/suspend`);
      expect((await client.tokenIntrospection(rs.config, a.token)).active).toBe(false);
      await h.admin('PATCH', `/admin/clients/${a.client_id}/reactivate`);
      expect((await client.tokenIntrospection(rs.config, a.token)).active).toBe(true);
    } finally {
      await h.admin('DELETE', `/admin/resources/${slug}/policy/runtime/client-ids/${rs.client_id}`);
    }
  });

  test('public clients cannot introspect; garbage tokens are inactive', async () => {
    const pub = await adminClient(h, {
      redirect_uris: ['http://127.0.0.1/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const m = await machine();
    const res = await oauth.introspectionRequest(
      as,
      { client_id: pub.client_id },
      oauth.None(),
      m.token,
      insecure,
    );
    expect(res.status).toBe(401);
    expect((await client.tokenIntrospection(m.config, 'garbage')).active).toBe(false);
  });
});

describe('revocation (RFC 7009)', () => {
  test('revoked access tokens are inactive at once; other clients cannot revoke', async () => {
    const a = await machine();
    const b = await machine();
    await client.tokenRevocation(b.config, a.token); // 200, but no effect
    expect((await client.tokenIntrospection(a.config, a.token)).active).toBe(true);
    await client.tokenRevocation(a.config, a.token);
    expect((await client.tokenIntrospection(a.config, a.token)).active).toBe(false);
    const res = await oauth.revocationRequest(
      as,
      { client_id: a.client_id },
      oauth.ClientSecretBasic(a.client_secret!),
      'unknown-token',
      insecure,
    );
    expect(res.status).toBe(200);
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  const meta = {
    client_name: 'Voice assistant',
    redirect_uris: ['https://assistant.example/cb'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  };

  test('open: 201, scope discarded, application_type defaults to web, unknown members ignored', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(h.auth),
      { ...meta, scope: 'site:admin', logo_uri: 'https://x.example/l.png', whatever: 1 },
      undefined,
      { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
    );
    const md = config.clientMetadata();
    expect(md.client_id).toBeTruthy();
    expect(md.client_secret).toBeTruthy();
    expect(md.application_type).toBe('web');
    expect(md.scope).toBeUndefined();
    expect(md.client_id_issued_at).toEqual(expect.any(Number));
    const view = (await h.admin('GET', `/admin/clients/${md.client_id}`)).body as Record<string, unknown>;
    expect(view).toMatchObject({ registration_source: 'dcr', scope: '', status: 'active' });
    expect(view).not.toHaveProperty('secret_hash');
  });

  test('openid-client registering with only redirect_uris gets the RFC 7591 §2 defaults (not field-by-field errors)', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(h.auth),
      { redirect_uris: ['https://notes.example/callback'] },
      undefined,
      { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
    );
    const md = config.clientMetadata();
    expect(md).toMatchObject({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['https://notes.example/callback'],
      // No client_name: the consent page names the client by where its codes go.
      client_name: 'notes.example',
    });
    expect(md.client_secret).toBeTruthy();
    // A public native client naming only its method and redirect works too.
    const native = await client.dynamicClientRegistration(
      new URL(h.auth),
      {
        redirect_uris: ['http://127.0.0.1/cb'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
      undefined,
      { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
    );
    expect(native.clientMetadata()).toMatchObject({
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
    });
    expect(native.clientMetadata().client_secret).toBeUndefined();
  });

  test('web clients cannot register loopback redirects; native clients can', async () => {
    const reg = (body: Record<string, unknown>) =>
      fetch(as.registration_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const web = await reg({ ...meta, redirect_uris: ['http://127.0.0.1/cb'] });
    expect(web.status).toBe(400);
    expect(web.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await web.json()).error).toBe('invalid_redirect_uri');
    const native = await reg({
      ...meta,
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    expect(native.status).toBe(201);
    const body = await native.json();
    expect(body).not.toHaveProperty('client_secret');
    expect(native.headers.get('cache-control')).toBe('no-store');
    const missing = await reg({ client_name: 'x' });
    expect((await missing.json()).error).toBe('invalid_client_metadata');
    const implicit = await reg({ ...meta, response_types: ['token'] });
    expect((await implicit.json()).error).toBe('invalid_client_metadata');
    const long = await reg({ ...meta, agent: true, agent_description: 'x'.repeat(256) });
    expect(long.status).toBe(400);
  });

  test('a DCR client with client_credentials gets invalid_scope for every explicit scope (spec rule 3)', async () => {
    const res = await fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...meta,
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
        scope: 'lights:read',
      }),
    });
    expect(res.status).toBe(201);
    const c = (await res.json()) as { client_id: string; client_secret: string };
    const tok = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: c.client_id },
      oauth.ClientSecretBasic(c.client_secret),
      new URLSearchParams({ resource: site, scope: 'lights:read' }),
      insecure,
    );
    expect((await tok.json()).error).toBe('invalid_scope');
  });

  test('approved_redirects and admin_only modes', async () => {
    const set = await h.admin('PATCH', '/admin/settings/dcr', {
      mode: 'approved_redirects',
      approved_redirects: ['https://ok.example/cb'],
    });
    expect(set.body).toMatchObject({ mode: 'approved_redirects' });
    const reg = (uris: string[]) =>
      oauth.dynamicClientRegistrationRequest(as, { ...meta, redirect_uris: uris }, insecure);
    const refused = await reg(['https://assistant.example/cb']);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_redirect_uri');
    const ok = await oauth.processDynamicClientRegistrationResponse(await reg(['https://ok.example/cb']));
    expect(ok.client_id).toBeTruthy();
    await h.admin('PATCH', '/admin/settings/dcr', { mode: 'admin_only' });
    const closed = await reg(['https://ok.example/cb']);
    expect(closed.status).toBe(403);
    expect(await closed.json()).toMatchObject({
      error: 'access_denied',
      error_description: 'registration is disabled',
    });
    const config = (await h.admin('GET', '/admin/system/config')).body as {
      dcr: { mode: string };
      notices: Array<{ id: string }>;
    };
    expect(config.dcr.mode).toBe('admin_only');
    expect(config.notices.map((n) => n.id)).not.toContain('dcr_open');
    expect(config.notices.map((n) => n.id)).toContain('tls_off');
    await h.admin('PATCH', '/admin/settings/dcr', { mode: 'open' });
    expect(
      ((await h.admin('GET', '/admin/system/config')).body as { notices: Array<{ id: string }> }).notices.map(
        (n) => n.id,
      ),
    ).toContain('dcr_open');
    expect((await h.admin('PATCH', '/admin/settings/dcr', { mode: 'sometimes' })).status).toBe(400);
  });

  test('client_id in the request is ignored (clients cannot pick their id); registration is rate-limited', async () => {
    const hub = await startAuthHub();
    try {
      const endpoint = `${hub.auth}/oauth/register`;
      const reg = () =>
        fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...meta, client_id: 'switch-hall-1' }),
        });
      const first = await reg();
      expect(first.status).toBe(201);
      expect((await first.json()).client_id).not.toBe('switch-hall-1');
      // Sent at once: the bucket (burst 20, 10 per second) is taken on arrival, before the durable write,
      // so how long each write takes on this machine does not matter.
      const answers = await Promise.all(Array.from({ length: 30 }, () => reg()));
      const limited = answers.find((r) => r.status === 429);
      expect(limited, answers.map((r) => r.status).join()).toBeDefined();
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await limited!.json()).error).toBe('slow_down');
    } finally {
      await hub.stop();
    }
  });
});
