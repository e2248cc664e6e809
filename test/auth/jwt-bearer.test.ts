import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AuthHub, adminClient, adminUser, startAuthHub } from './helpers.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

interface Site {
  siteid: string;
}

/** A small identity provider on loopback: its discovery document and JWKS (counting fetches). */
async function startIdp() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const state = { jwksHits: 0, huge: false };
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
    } else if (req.url === '/jwks') {
      state.jwksHits++;
      res.end(
        state.huge
          ? JSON.stringify({ keys: [jwk], pad: 'x'.repeat(70_000) })
          : JSON.stringify({ keys: [jwk] }),
      );
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, privateKey, state, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let h: AuthHub;
let idp: Awaited<ReturnType<typeof startIdp>>;
let idpId: string;
let user: { id: string };
let siteUri: string;
let client: { id: string; config: oidc.Configuration };
let seq = 0;

async function assertion(
  claims: Record<string, unknown> = {},
  opts: { typ?: string; key?: CryptoKey; kid?: string } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  // iat and exp in the claims (SignJWT's setters would override a test's own exp).
  return new SignJWT({
    iss: idp.issuer,
    sub: 'alice@corp',
    aud: h.auth,
    client_id: client.id,
    jti: `jag-${++seq}`,
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: opts.typ ?? 'oauth-id-jag+jwt', kid: opts.kid ?? 'k1' })
    .sign(opts.key ?? idp.privateKey);
}

const grant = (a: string, params: Record<string, string> = {}, c = client) =>
  oidc.genericGrantRequest(c.config, JWT_BEARER, { assertion: a, resource: siteUri, ...params });

beforeAll(async () => {
  h = await startAuthHub();
  idp = await startIdp();
  user = await adminUser(h, 'alice@home.test');
  const site = (await h.admin('POST', '/admin/sites', { name: 'Office' })).body as Site;
  siteUri = `urn:hearth:site:${site.siteid}`;
  const made = await h.admin('POST', '/admin/idps', { name: 'Corp IdP', issuer: idp.issuer });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  idpId = (made.body as { id: string }).id;
  const c = await adminClient(h, {
    client_name: 'corp app',
    grant_types: [JWT_BEARER],
    scope: 'lights:read lights:write',
  });
  client = {
    id: c.client_id,
    config: await oidc.discovery(
      new URL(h.auth),
      c.client_id,
      undefined,
      oidc.ClientSecretBasic(c.client_secret!),
      {
        execute: [oidc.allowInsecureRequests],
        algorithm: 'oauth2',
      },
    ),
  };
  expect(
    (
      await h.admin('POST', '/admin/xaa/policies', {
        name: 'corp app on the office',
        idp_id: idpId,
        client_ids: [client.id],
        scopes: [],
        resources: [siteUri],
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await h.admin('POST', '/admin/xaa/subject-mappings', {
        idp_id: idpId,
        idp_subject: 'alice@corp',
        local_user_id: user.id,
      })
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await h?.stop();
  await idp?.close();
});

describe('discovery', () => {
  test('jwt-bearer and the ID-JAG profile are advertised; trusted issuers are not', async () => {
    const text = await (await fetch(`${h.auth}/.well-known/oauth-authorization-server`)).text();
    const meta = JSON.parse(text) as Record<string, unknown>;
    expect(meta.grant_types_supported).toContain(JWT_BEARER);
    expect(meta.authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
    expect(text).not.toContain(idp.issuer);
  });
});

describe('ID-JAG through openid-client', () => {
  test('a mapped subject gets a site token: sub is the local user, act names the IdP, no refresh token; keys fetched once', async () => {
    const before = idp.state.jwksHits;
    const out = await grant(await assertion({ scope: 'lights:read' }));
    expect(out).toMatchObject({ token_type: 'bearer', scope: 'lights:read' });
    expect(out.refresh_token).toBeUndefined();
    expect(decodeJwt(out.access_token)).toMatchObject({
      sub: user.id,
      aud: siteUri,
      client_id: client.id,
      act: { sub: idp.issuer },
    });
    const again = await grant(await assertion());
    expect(again.scope).toBe('lights:read lights:write'); // the client ceiling ∩ the resource
    expect(idp.state.jwksHits - before).toBeLessThanOrEqual(1);
  });

  test('negative: replay, foreign signature, untrusted issuer, wrong aud, another client, expired, wrong typ, unmapped subject', async () => {
    const refused = async (a: string, why: string, params: Record<string, string> = {}) =>
      expect(grant(a, params), why).rejects.toMatchObject({ error: 'invalid_grant' });
    const once = await assertion();
    await grant(once);
    await refused(once, 'replay');
    const { privateKey: foreign } = await generateKeyPair('ES256');
    await refused(await assertion({}, { key: foreign }), 'foreign signature');
    await refused(await assertion({}, { key: foreign, kid: 'other' }), 'unknown kid');
    await refused(await assertion({ iss: 'https://idp.elsewhere.test' }), 'untrusted issuer');
    await refused(await assertion({ aud: 'https://another-as.test' }), 'aud');
    await refused(await assertion({ client_id: 'someone-else' }), 'client_id');
    await refused(await assertion({ exp: Math.floor(Date.now() / 1000) - 10 }), 'expired');
    await refused(await assertion({}, { typ: 'JWT' }), 'typ');
    await refused(await assertion({ sub: 'mallory@corp' }), 'unmapped subject (strict)');
    // Scope beyond the ceiling or the assertion, and a resource the assertion does not name.
    await expect(
      grant(await assertion({ scope: 'lights:read' }), { scope: 'lights:write' }),
    ).rejects.toMatchObject({
      error: 'invalid_scope',
    });
    await expect(grant(await assertion(), { scope: 'site:admin' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
    await expect(grant(await assertion({ resource: 'urn:hearth:translation' }))).rejects.toMatchObject({
      error: 'invalid_target',
    });
    // A refused request does not use the assertion up.
    const kept = await assertion({ scope: 'lights:read' });
    await expect(grant(kept, { scope: 'lights:write' })).rejects.toMatchObject({ error: 'invalid_scope' });
    expect((await grant(kept)).scope).toBe('lights:read');
  });

  test('an ID-JAG with exp a year ahead is refused (invalid_grant) and takes no replay slot; one within max_assertion_age works', async () => {
    const now = Math.floor(Date.now() / 1000);
    const yearLong = await assertion({ exp: now + 365 * 24 * 3600 });
    await expect(grant(yearLong)).rejects.toMatchObject({ error: 'invalid_grant' });
    // exp minus iat beyond max_assertion_age (300 s by default) is too long, even a little.
    await expect(grant(await assertion({ iat: now, exp: now + 301 }))).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await grant(await assertion({ iat: now, exp: now + 300 }))).scope).toBe(
      'lights:read lights:write',
    );
  });

  test('XAA policies decide: a disabled policy or one for another resource refuses; a policy scope list narrows', async () => {
    const policies = (await h.admin('GET', `/admin/xaa/policies?idp_id=${idpId}`)).body as Array<
      Record<string, unknown>
    >;
    expect(policies).toHaveLength(1);
    const p = policies[0]!;
    const put = (body: Record<string, unknown>) =>
      h.admin('PUT', `/admin/xaa/policies/${p.id}`, { ...p, ...body });
    expect((await put({ enabled: false })).status).toBe(200);
    await expect(grant(await assertion())).rejects.toMatchObject({ error: 'invalid_grant' });
    await put({ enabled: true, resources: ['urn:hearth:translation'] });
    await expect(grant(await assertion())).rejects.toMatchObject({ error: 'invalid_grant' });
    await put({ enabled: true, resources: [siteUri], scopes: ['lights:read'] });
    expect((await grant(await assertion())).scope).toBe('lights:read');
    await expect(grant(await assertion(), { scope: 'lights:write' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
    await put({ scopes: [] });
  });
});

describe('identity providers and XAA admin', () => {
  test('idps CRUD, refresh-keys lists key ids, 502 for an oversized or unreachable key set, 404 for unknown ids', async () => {
    const refreshed = await h.admin('POST', `/admin/idps/${idpId}/refresh-keys`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ issuer: idp.issuer, key_ids: ['k1'], enabled: true });
    expect((await h.admin('POST', '/admin/idps', { name: 'dup', issuer: idp.issuer })).status).toBe(409);
    expect((await h.admin('POST', '/admin/idps', { name: 'bad', issuer: 'not a url' })).status).toBe(400);
    idp.state.huge = true;
    try {
      const big = await h.admin('POST', `/admin/idps/${idpId}/refresh-keys`);
      expect(big.status).toBe(502);
      expect(big.body).toMatchObject({ error: 'jwks_fetch_failed' });
    } finally {
      idp.state.huge = false;
    }
    const gone = await h.admin('POST', '/admin/idps', {
      name: 'gone',
      issuer: 'http://127.0.0.1:9/',
      jwks_uri: 'http://127.0.0.1:9/jwks',
    });
    expect(gone.status).toBe(201);
    const goneId = (gone.body as { id: string }).id;
    expect((await h.admin('POST', `/admin/idps/${goneId}/refresh-keys`)).status).toBe(502);
    expect(
      (
        await h.admin('PUT', `/admin/idps/${goneId}`, {
          name: 'renamed',
          issuer: 'http://127.0.0.1:9/',
          enabled: false,
        })
      ).body,
    ).toMatchObject({
      name: 'renamed',
      enabled: false,
    });
    await h.admin('POST', '/admin/xaa/subject-mappings', {
      idp_id: goneId,
      idp_subject: 'x',
      local_user_id: user.id,
    });
    expect((await h.admin('DELETE', `/admin/idps/${goneId}`)).status).toBe(204);
    expect((await h.admin('GET', `/admin/xaa/subject-mappings?idp_id=${goneId}`)).body).toEqual([]);
    for (const p of ['/admin/idps/constructor', '/admin/idps/__proto__', '/admin/xaa/policies/constructor'])
      expect((await h.admin('GET', p)).status, p).toBe(404);
    expect((await h.admin('DELETE', '/admin/xaa/subject-mappings/toString')).status).toBe(404);
    expect(
      (
        await h.admin('POST', '/admin/xaa/subject-mappings', {
          idp_id: idpId,
          idp_subject: 'alice@corp',
          local_user_id: user.id,
        })
      ).status,
    ).toBe(409);
    expect((await h.admin('POST', '/admin/xaa/policies', { name: 'x', idp_id: 'nope' })).status).toBe(400);
  });
});

test('auto_map: an unmapped subject gets a token whose sub is "<issuer>:<subject>"', async () => {
  const other = await startAuthHub({ config: { plugins: { auth: { xaa: { subject_mode: 'auto_map' } } } } });
  try {
    const made = (await other.admin('POST', '/admin/idps', { name: 'Corp', issuer: idp.issuer })).body as {
      id: string;
    };
    const c = await adminClient(other, { grant_types: [JWT_BEARER], scope: 'translate' });
    await other.admin('POST', '/admin/xaa/policies', { name: 'all', idp_id: made.id });
    const config = await oidc.discovery(
      new URL(other.auth),
      c.client_id,
      undefined,
      oidc.ClientSecretBasic(c.client_secret!),
      {
        execute: [oidc.allowInsecureRequests],
        algorithm: 'oauth2',
      },
    );
    const a = await new SignJWT({
      iss: idp.issuer,
      sub: 'bob@corp',
      aud: other.auth,
      client_id: c.client_id,
      jti: 'auto-1',
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt', kid: 'k1' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(idp.privateKey);
    const out = await oidc.genericGrantRequest(config, JWT_BEARER, {
      assertion: a,
      resource: 'urn:hearth:translation',
    });
    expect(decodeJwt(out.access_token).sub).toBe(`${idp.issuer}:bob@corp`);
  } finally {
    await other.stop();
  }
});
