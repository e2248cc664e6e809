import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, exportJWK, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  login,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

const REDIRECT = 'http://127.0.0.1/callback';
let h: AuthHub;
let user: { id: string; email: string; password: string };
let site: string;

beforeAll(async () => {
  h = await startAuthHub();
  user = await adminUser(h, 'olive@home.test');
  site = await siteResourceUri(h);
});
afterAll(async () => {
  await h?.stop();
});

/** A public native app configured through OpenID Connect discovery (openid-client's default algorithm). */
async function openIdApp(
  extra: Record<string, unknown> = {},
  metadata?: Partial<oidc.ClientMetadata>,
): Promise<{ id: string; config: oidc.Configuration }> {
  const c = await adminClient(h, {
    client_name: 'Household app',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  const config = await oidc.discovery(new URL(h.auth), c.client_id, metadata, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  return { id: c.client_id, config };
}

async function request(config: oidc.Configuration, params: Record<string, string>) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
  });
  return { url: url.toString(), verifier, state, nonce };
}

const atHash = (token: string) =>
  createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

describe('OpenID Connect discovery', () => {
  test('/.well-known/openid-configuration has the members OpenID Connect Discovery requires, and openid scopes', async () => {
    const meta = (await (await fetch(`${h.auth}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta).toMatchObject({
      issuer: h.auth,
      authorization_endpoint: `${h.auth}/oauth/authorize`,
      token_endpoint: `${h.auth}/oauth/token`,
      userinfo_endpoint: `${h.auth}/oauth/userinfo`,
      jwks_uri: `${h.auth}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      request_uri_parameter_supported: false,
    });
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(meta.claims_supported).toEqual(expect.arrayContaining(['sub', 'auth_time', 'nonce', 'at_hash']));
  });
});

describe('sign-in with openid-client', () => {
  test('code flow with openid: an ID token with nonce, auth_time and at_hash; userinfo with profile and email', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const before = Math.floor(Date.now() / 1000);
    const flow = await request(app.config, { scope: 'openid profile email' });
    const callback = await authorizeInBrowser(b, flow.url, user);
    const tokens = await oidc.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    // openid-client validated the ID token (signature, iss, aud, exp, nonce); the rest by hand.
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: h.auth, sub: user.id, aud: app.id, nonce: flow.nonce });
    expect(claims.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(claims.at_hash).toBe(atHash(tokens.access_token));
    // OpenID Connect Registration §2: without id_token_signed_response_alg, RS256.
    expect(decodeProtectedHeader(tokens.id_token!)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    // An identity-only request is for the userinfo resource.
    expect(decodeJwt(tokens.access_token).aud).toBe('urn:hearth:userinfo');
    const info = await oidc.fetchUserInfo(app.config, tokens.access_token, user.id);
    expect(info).toEqual({ sub: user.id, name: 'Ann', email: user.email });
    // A refresh gives a new access token (no ID token, OpenID Connect Core §12.2 allows that).
    const refreshed = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!);
    expect(refreshed.id_token).toBeUndefined();
    expect((await oidc.fetchUserInfo(app.config, refreshed.access_token, user.id)).sub).toBe(user.id);
  });

  test('openid next to a site scope: the site token carries openid, gets an ID token, and works at userinfo; only openid gives no name', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const flow = await request(app.config, { scope: 'openid lights:read', resource: site });
    const callback = await authorizeInBrowser(b, flow.url, user);
    const tokens = await oidc.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: site, scope: 'openid lights:read' });
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(await oidc.fetchUserInfo(app.config, tokens.access_token, user.id)).toEqual({ sub: user.id });
  });

  test('DPoP-bound: the userinfo request carries a proof; the same token as Bearer is refused', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const flow = await request(app.config, { scope: 'openid profile' });
    const callback = await authorizeInBrowser(b, flow.url, user);
    const dpop = oidc.getDPoPHandle(app.config, await oidc.randomDPoPKeyPair());
    const tokens = await oidc.authorizationCodeGrant(
      app.config,
      callback,
      { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type).toBe('dpop');
    expect(await oidc.fetchUserInfo(app.config, tokens.access_token, user.id, { DPoP: dpop })).toMatchObject({
      name: 'Ann',
    });
    const bearer = await fetch(`${h.auth}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });
});

describe('ID token algorithms', () => {
  async function signIn(app: { config: oidc.Configuration }) {
    const b = new Browser(h.auth);
    const flow = await request(app.config, { scope: 'openid' });
    const callback = await authorizeInBrowser(b, flow.url, user);
    return oidc.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
  }

  test('an OpenID client that accepts only RS256 signs in (the default when a client names no algorithm)', async () => {
    // What AppAuth-style clients do: they expect RS256 whatever the server lists.
    const app = await openIdApp({}, { id_token_signed_response_alg: 'RS256' });
    const tokens = await signIn(app);
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
    expect(tokens.claims()!.sub).toBe(user.id);
    const view = (await h.admin('GET', `/admin/clients/${app.id}`)).body as Record<string, unknown>;
    expect(view.id_token_signed_response_alg).toBe('RS256');
  });

  test('id_token_signed_response_alg ES256 per client (admin and dynamic registration); an unknown algorithm is 400', async () => {
    const admin = await openIdApp(
      { id_token_signed_response_alg: 'ES256' },
      { id_token_signed_response_alg: 'ES256' },
    );
    expect(decodeProtectedHeader((await signIn(admin)).id_token!).alg).toBe('ES256');
    // PATCH switches it back to RS256.
    const patched = await h.admin('PATCH', `/admin/clients/${admin.id}`, {
      id_token_signed_response_alg: 'RS256',
    });
    expect((patched.body as Record<string, unknown>).id_token_signed_response_alg).toBe('RS256');
    const again = await oidc.discovery(new URL(h.auth), admin.id, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(decodeProtectedHeader((await signIn({ config: again })).id_token!).alg).toBe('RS256');
    // RFC 7591 registration with the OpenID Connect member.
    const reg = await fetch(`${h.auth}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Registered app',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        id_token_signed_response_alg: 'ES256',
      }),
    });
    expect(reg.status).toBe(201);
    const registered = (await reg.json()) as { client_id: string; id_token_signed_response_alg: string };
    expect(registered.id_token_signed_response_alg).toBe('ES256');
    const dcrConfig = await oidc.discovery(
      new URL(h.auth),
      registered.client_id,
      { id_token_signed_response_alg: 'ES256' },
      oidc.None(),
      { execute: [oidc.allowInsecureRequests] },
    );
    expect(decodeProtectedHeader((await signIn({ config: dcrConfig })).id_token!).alg).toBe('ES256');
    // Refusals: HS256 (a shared-secret algorithm) and none.
    for (const alg of ['HS256', 'none']) {
      const bad = await h.admin('POST', '/admin/clients', {
        client_name: 'bad',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: '',
        agent: false,
        agent_description: '',
        id_token_signed_response_alg: alg,
      });
      expect(bad.status).toBe(400);
      const badReg = await fetch(`${h.auth}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'bad',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
          id_token_signed_response_alg: alg,
        }),
      });
      expect(badReg.status).toBe(400);
      expect(((await badReg.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
    const badPatch = await h.admin('PATCH', `/admin/clients/${admin.id}`, {
      id_token_signed_response_alg: 'HS256',
    });
    expect(badPatch.status).toBe(400);
  });
});

describe('userinfo refusals', () => {
  test('no token 401 with a bare challenge; a token without openid 403 insufficient_scope; a machine token 401', async () => {
    const none = await fetch(`${h.auth}/oauth/userinfo`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const c = await adminClient(h, { scope: 'lights:read', resources: [site] });
    const cc = await fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
    });
    const machine = ((await cc.json()) as { access_token: string }).access_token;
    const res = await fetch(`${h.auth}/oauth/userinfo`, { headers: { authorization: `Bearer ${machine}` } });
    expect(res.status).toBe(401);
    expect(JSON.stringify(await res.json())).not.toContain(machine);
    // A user's token without openid.
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const flow = await request(app.config, { scope: 'lights:read', resource: site });
    const callback = await authorizeInBrowser(b, flow.url, user);
    // No expectedNonce: openid-client would then demand an ID token, and without openid there is none.
    const tokens = await oidc.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    expect(tokens.id_token).toBeUndefined();
    const noOpenid = await fetch(`${h.auth}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(noOpenid.status).toBe(403);
    expect(noOpenid.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
  });
});

describe('prompt and max_age', () => {
  test('prompt=none: login_required without a session, consent_required without a stored consent', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const flow = await request(app.config, { scope: 'openid', prompt: 'none' });
    let res = await b.fetch(flow.url);
    let back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('login_required');
    expect(back.searchParams.get('state')).toBe(flow.state);
    expect((await login(b, user.email, user.password)).status).toBe(303);
    res = await b.fetch(flow.url);
    back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('consent_required');
  });

  test('prompt=login and max_age=0 send a signed-in user to the login page once, then on to the app', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const first = await request(app.config, { scope: 'openid' });
    await authorizeInBrowser(b, first.url, user);
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }]) {
      const flow = await request(app.config, { scope: 'openid', ...extra });
      const res = await b.fetch(flow.url);
      expect(res.headers.get('location')).toMatch(/^\/login\?redirect=/);
      const target = new URL(res.headers.get('location')!, h.auth).searchParams.get('redirect')!;
      expect(target).not.toMatch(/prompt=|max_age=/);
      const callback = await authorizeInBrowser(b, flow.url, user);
      const tokens = await oidc.authorizationCodeGrant(app.config, callback, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        ...('max_age' in extra ? { maxAge: 0 } : {}),
      });
      expect(tokens.claims()!.sub).toBe(user.id);
    }
  });
});

describe('silent sign-in and userinfo by POST', () => {
  test('prompt=none with a session and a stored consent returns a code at once; auth_time is the session’s sign-in', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const first = await request(app.config, { scope: 'openid email' });
    const firstTokens = await oidc.authorizationCodeGrant(
      app.config,
      await authorizeInBrowser(b, first.url, user),
      {
        pkceCodeVerifier: first.verifier,
        expectedState: first.state,
        expectedNonce: first.nonce,
      },
    );
    const signedInAt = firstTokens.claims()!.auth_time!;
    // No page at all: the authorization endpoint answers with the code.
    const silent = await request(app.config, { scope: 'openid email', prompt: 'none', max_age: '3600' });
    const res = await b.fetch(silent.url);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('code')).toBeTruthy();
    const tokens = await oidc.authorizationCodeGrant(app.config, back, {
      pkceCodeVerifier: silent.verifier,
      expectedState: silent.state,
      expectedNonce: silent.nonce,
      maxAge: 3600,
    });
    expect(tokens.claims()).toMatchObject({ sub: user.id, nonce: silent.nonce, auth_time: signedInAt });
  });

  test('POST /oauth/userinfo: Bearer in the header or the form (not both), and a DPoP-bound token with a proof for POST (a proof for GET is refused)', async () => {
    const app = await openIdApp();
    const b = new Browser(h.auth);
    const flow = await request(app.config, { scope: 'openid email' });
    const callback = await authorizeInBrowser(b, flow.url, user);
    const plain = await oidc.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    const post = await fetch(`${h.auth}/oauth/userinfo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${plain.access_token}` },
    });
    expect(post.status).toBe(200);
    expect(await post.json()).toEqual({ sub: user.id, email: user.email });
    // RFC 6750 §2.2: the form parameter, once and alone.
    const form = (body: URLSearchParams, headers: Record<string, string> = {}) =>
      fetch(`${h.auth}/oauth/userinfo`, { method: 'POST', headers, body });
    const inForm = await form(new URLSearchParams({ access_token: plain.access_token }));
    expect(inForm.status).toBe(200);
    expect(((await inForm.json()) as { sub: string }).sub).toBe(user.id);
    const twice = await form(new URLSearchParams({ access_token: plain.access_token }), {
      authorization: `Bearer ${plain.access_token}`,
    });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { error: string }).error).toBe('invalid_request');
    const repeated = new URLSearchParams([
      ['access_token', plain.access_token],
      ['access_token', plain.access_token],
    ]);
    expect((await form(repeated)).status).toBe(400);

    const kp = await oidc.randomDPoPKeyPair();
    const bound = await request(app.config, { scope: 'openid email' });
    const dpop = oidc.getDPoPHandle(app.config, kp);
    const tokens = await oidc.authorizationCodeGrant(
      app.config,
      await authorizeInBrowser(b, bound.url, user),
      { pkceCodeVerifier: bound.verifier, expectedState: bound.state, expectedNonce: bound.nonce },
      undefined,
      { DPoP: dpop },
    );
    const ath = createHash('sha256').update(tokens.access_token).digest('base64url');
    const jwk = await exportJWK(kp.publicKey);
    const proof = (htm: string) =>
      new SignJWT({
        htm,
        htu: `${h.auth}/oauth/userinfo`,
        ath,
        jti: crypto.randomUUID(),
        iat: Math.floor(Date.now() / 1000),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(kp.privateKey);
    const ok = await fetch(`${h.auth}/oauth/userinfo`, {
      method: 'POST',
      headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await proof('POST') },
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { sub: string }).sub).toBe(user.id);
    const wrongMethod = await fetch(`${h.auth}/oauth/userinfo`, {
      method: 'POST',
      headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await proof('GET') },
    });
    expect(wrongMethod.status).toBe(401);
    expect(wrongMethod.headers.get('www-authenticate')).toBe('DPoP error="invalid_token"');
    // A bound token in the form is a Bearer presentation: refused.
    expect((await form(new URLSearchParams({ access_token: tokens.access_token }))).status).toBe(401);
  });
});
