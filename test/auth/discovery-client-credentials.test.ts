import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as oauth from 'oauth4webapi';
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

/** Every secret and token this file saw: none may appear in a log line. */
const secrets: string[] = [];

async function ccGrant(id: string, secret: string, params: Record<string, string>) {
  secrets.push(secret);
  const client = { client_id: id };
  const res = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(secret),
    new URLSearchParams(params),
    insecure,
  );
  return { res, result: () => oauth.processClientCredentialsResponse(as, client, res) };
}

describe('discovery', () => {
  test('RFC 8414 metadata: same body on both paths, only implemented features', async () => {
    expect(as.issuer).toBe(h.auth);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.grant_types_supported).toEqual([
      'authorization_code',
      'client_credentials',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]);
    expect(as.response_types_supported).toEqual(['code']);
    for (const k of [
      'registration_endpoint',
      'revocation_endpoint',
      'introspection_endpoint',
      'jwks_uri',
      'token_endpoint',
    ]) {
      expect(as[k], k).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    }
    expect(as.resource_indicators_supported).toBe(true);
    expect(as.scopes_supported).toContain('lights:write');
    // Every member the spec's asMetadata marks required, with the values this server implements.
    expect(as).toMatchObject({
      authorization_endpoint: `${h.auth}/oauth/authorize`,
      token_endpoint: `${h.auth}/oauth/token`,
      registration_endpoint: `${h.auth}/oauth/register`,
      revocation_endpoint: `${h.auth}/oauth/revoke`,
      jwks_uri: `${h.auth}/.well-known/jwks.json`,
      token_endpoint_auth_methods_supported: expect.arrayContaining([
        'none',
        'client_secret_basic',
        'client_secret_post',
      ]),
      revocation_endpoint_auth_methods_supported: expect.arrayContaining([
        'client_secret_basic',
        'client_secret_post',
      ]),
    });
    // What is implemented: DPoP, token exchange, jwt-bearer with ID-JAG; no client ID metadata documents.
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
    expect(as.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
    expect(as.client_id_metadata_document_supported).toBe(false);
    const oidc = await (await fetch(`${h.auth}/.well-known/openid-configuration`)).json();
    expect(oidc).toEqual(JSON.parse(JSON.stringify(as)));
  });

  test('JWKS: public keys only, Cache-Control max-age=300', async () => {
    const res = await fetch(as.jwks_uri!);
    expect(res.headers.get('cache-control')).toBe('max-age=300');
    const jwks = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBe(2);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[1]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    for (const k of jwks.keys)
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(k).not.toHaveProperty(secret);
  });

  test('RFC 9728 protected-resource metadata for each resource, read by oauth4webapi', async () => {
    const list = (await h.admin('GET', '/admin/resources')).body as Array<{ slug: string; uri: string }>;
    const siteRes = list.find((r) => r.uri === site)!;
    const res = await fetch(`${h.auth}/.well-known/oauth-protected-resource/${siteRes.slug}`);
    const prm = (await res.json()) as Record<string, unknown>;
    expect(prm).toMatchObject({
      resource: site,
      authorization_servers: [h.auth],
      bearer_methods_supported: ['header'],
    });
    expect(prm.scopes_supported).toEqual([
      'lights:read',
      'lights:write',
      'scenes:apply',
      'sensors:write',
      'schedules:write',
      'site:admin',
    ]);
    // Every resource (each site, translation) has its own document naming it.
    for (const r of list) {
      const doc = await (await fetch(`${h.auth}/.well-known/oauth-protected-resource/${r.slug}`)).json();
      expect(doc, r.slug).toMatchObject({ resource: r.uri, authorization_servers: [h.auth] });
    }
    const root = await oauth.processResourceDiscoveryResponse(
      new URL(h.auth),
      await oauth.resourceDiscoveryRequest(new URL(h.auth), insecure),
    );
    expect(root.authorization_servers).toEqual([h.auth]);
    expect((await fetch(`${h.auth}/.well-known/oauth-protected-resource/nope`)).status).toBe(404);
  });

  test('health probes', async () => {
    for (const p of ['/health', '/ready', '/livez']) {
      const res = await fetch(`${h.auth}${p}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', time: expect.any(String) });
    }
  });
});

describe('client_credentials', () => {
  test('a wall switch gets an RFC 9068 token bounded by its ceiling', async () => {
    const c = await adminClient(h, {
      client_name: 'wall switch',
      scope: 'lights:write scenes:apply sensors:write',
    });
    const { res, result } = await ccGrant(c.client_id, c.client_secret!, {
      resource: site,
      scope: 'scenes:apply',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const tokens = await result();
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe('scenes:apply');
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: h.auth,
      sub: c.client_id,
      aud: site,
      client_id: c.client_id,
      scope: 'scenes:apply',
    });
    for (const k of ['exp', 'iat', 'jti']) expect(claims).toHaveProperty(k);
    // No scope asked: the whole ceiling for that resource.
    const all = await (await ccGrant(c.client_id, c.client_secret!, { resource: site })).result();
    expect(all.scope).toBe('lights:write scenes:apply sensors:write');
    // The issuance is recorded.
    const iss = await h.admin('GET', `/admin/issuances?client=${c.client_id}`);
    expect((iss.body as { count: number }).count).toBe(2);
  });

  test('a scope beyond the ceiling is invalid_scope, as application/json with RFC 9457 members', async () => {
    const c = await adminClient(h, { scope: 'lights:write' });
    const { res } = await ccGrant(c.client_id, c.client_secret!, { resource: site, scope: 'site:admin' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.clone().json();
    expect(body).toMatchObject({
      error: 'invalid_scope',
      status: 400,
      title: 'Bad Request',
      type: expect.any(String),
      detail: expect.any(String),
    });
    await expect(
      oauth.processClientCredentialsResponse(as, { client_id: c.client_id }, res),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  test('an empty ceiling gives invalid_scope (spec rule 4)', async () => {
    const c = await adminClient(h, { scope: '' });
    const { res } = await ccGrant(c.client_id, c.client_secret!, { resource: site });
    expect((await res.json()).error).toBe('invalid_scope');
  });

  test('wrong secret, unknown client, suspended client: 401 invalid_client with WWW-Authenticate', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const bad = await ccGrant(c.client_id, 'nope', { resource: site });
    expect(bad.res.status).toBe(401);
    expect(bad.res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await bad.res.json()).error).toBe('invalid_client');
    expect((await ccGrant('unknown', 'x', { resource: site })).res.status).toBe(401);
    expect((await h.admin('PATCH', `/admin/clients/${c.client_id}/suspend`)).body).toEqual({
      status: 'suspended',
    });
    expect((await ccGrant(c.client_id, c.client_secret!, { resource: site })).res.status).toBe(401);
    expect((await h.admin('PATCH', `/admin/clients/${c.client_id}/suspend`)).status).toBe(409);
    await h.admin('PATCH', `/admin/clients/${c.client_id}/reactivate`);
    expect((await ccGrant(c.client_id, c.client_secret!, { resource: site })).res.status).toBe(200);
  });

  test('client_secret_post works for clients registered with it; mixing methods is refused', async () => {
    const c = await adminClient(h, {
      scope: 'lights:read',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const client = { client_id: c.client_id };
    const ok = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(c.client_secret!),
      new URLSearchParams({ resource: site }),
      insecure,
    );
    expect((await oauth.processClientCredentialsResponse(as, client, ok)).scope).toBe('lights:read');
    const basic = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(c.client_secret!),
      new URLSearchParams({ resource: site }),
      insecure,
    );
    expect(basic.status).toBe(401);
  });

  test('unknown resource, missing resource, unsupported grant and duplicated parameters are 400s', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const auth = `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`;
    const post = (body: string) =>
      fetch(as.token_endpoint!, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    expect((await (await post('grant_type=client_credentials&resource=urn:nope')).json()).error).toBe(
      'invalid_target',
    );
    expect((await (await post('grant_type=client_credentials')).json()).error).toBe('invalid_target');
    expect((await (await post('grant_type=password&username=a&password=b')).json()).error).toBe(
      'unsupported_grant_type',
    );
    const dup = await post(
      `grant_type=client_credentials&resource=${encodeURIComponent(site)}&scope=a&scope=b`,
    );
    expect(dup.status).toBe(400);
    expect((await dup.json()).error).toBe('invalid_request');
    // RFC 8707 §2 allows several `resource` values; a server that issues for one answers invalid_target.
    const two = await post(
      `grant_type=client_credentials&resource=${encodeURIComponent(site)}&resource=${encodeURIComponent(site)}`,
    );
    expect(two.status).toBe(400);
    expect((await two.json()).error).toBe('invalid_target');
    const junk = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":',
    });
    expect(junk.status).toBe(400);
    expect((await junk.json()).error).toBe('invalid_request');
  });

  test('a client limited to one site cannot get tokens for another (invalid_target)', async () => {
    const c = await adminClient(h, { scope: 'translate lights:read', resources: [site] });
    expect(
      (
        await (
          await ccGrant(c.client_id, c.client_secret!, { resource: 'urn:hearth:translation' })
        ).res.json()
      ).error,
    ).toBe('invalid_target');
    expect((await ccGrant(c.client_id, c.client_secret!, { resource: site })).res.status).toBe(200);
  });
});

describe('secrets stay out of the log', () => {
  test('no client secret or access token appears in any log line (debug level, access log on)', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const { result } = await ccGrant(c.client_id, c.client_secret!, { resource: site });
    secrets.push((await result()).access_token);
    await ccGrant(c.client_id, 'wrong-secret-value-123', { resource: site });
    const text = JSON.stringify(h.logs);
    expect(h.logs.length).toBeGreaterThan(10);
    // (Short made-up wrong secrets such as 'nope' would match ordinary words; real ones are long.)
    for (const x of secrets.filter((y) => y.length >= 20))
      expect(text.includes(x), 'a secret reached the log').toBe(false);
  });
});
