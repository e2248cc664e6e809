import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  hidden,
  login,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

let h: AuthHub;
let site: string;
let user: { id: string; email: string; password: string };
const REDIRECT = 'http://127.0.0.1/callback';

beforeAll(async () => {
  h = await startAuthHub();
  site = await siteResourceUri(h);
  user = await adminUser(h);
});
afterAll(async () => {
  await h?.stop();
});

/** A phone app: a public native client with the code flow and refresh tokens. */
async function phoneApp(grants = ['authorization_code', 'refresh_token']) {
  const c = await adminClient(h, {
    client_name: 'Phone app',
    redirect_uris: [REDIRECT],
    grant_types: grants,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const config = await client.discovery(new URL(h.auth), c.client_id, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
    algorithm: 'oauth2',
  });
  return { id: c.client_id, config };
}

async function startFlow(config: client.Configuration, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'http://127.0.0.1:49152/callback', // loopback: any port (RFC 8252 §7.3)
    scope: 'lights:read lights:write',
    resource: site,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  return { url: url.toString(), verifier, state };
}

/** A phone app's flow for `scope`, logged in through the real login page, stopped at its consent page. */
async function toConsent(scope: string): Promise<{ b: Browser; consentUrl: string }> {
  const app = await phoneApp();
  const b = new Browser(h.auth);
  const flow = await startFlow(app.config, { scope });
  let res = await b.fetch(flow.url);
  res = await login(
    b,
    user.email,
    user.password,
    new URL(res.headers.get('location')!, h.auth).searchParams.get('redirect')!,
  );
  res = await b.fetch(res.headers.get('location')!);
  return { b, consentUrl: res.headers.get('location')! };
}

describe('authorization code flow with PKCE through the real pages', () => {
  test('login, consent, code, tokens; refresh rotates; reuse revokes the family', async () => {
    const app = await phoneApp();
    const b = new Browser(h.auth);
    const flow = await startFlow(app.config);
    const callback = await authorizeInBrowser(b, flow.url, user);
    expect(callback.searchParams.get('iss')).toBe(h.auth); // RFC 9207
    const tokens = await client.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    expect(tokens.scope).toBe('lights:read lights:write');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: user.id, aud: site, client_id: app.id });
    const rt1 = tokens.refresh_token!;
    expect(rt1).toBeTruthy();

    const second = await client.refreshTokenGrant(app.config, rt1);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(rt1);
    // Reusing the rotated token is refused and takes the whole family with it (RFC 9700 §4.14.2).
    await expect(client.refreshTokenGrant(app.config, rt1)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(app.config, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const audit = (await h.admin('GET', '/admin/audit?action=family.revoked')).body as unknown[];
    expect(audit.length).toBeGreaterThan(0);
    // The access tokens of the family are revoked too.
    const iss = (await h.admin('GET', `/admin/issuances?client=${app.id}`)).body as {
      issuances: Array<{ revoked_at?: string }>;
    };
    expect(iss.issuances.length).toBe(2);
    expect(iss.issuances.every((i) => i.revoked_at)).toBe(true);
  });

  test('stored consent is reused; the user may narrow scopes', async () => {
    const app = await phoneApp();
    const b = new Browser(h.auth);
    const first = await startFlow(app.config);
    const cb1 = await authorizeInBrowser(b, first.url, user, { action: 'allow', scopes: ['lights:read'] });
    const t1 = await client.authorizationCodeGrant(app.config, cb1, {
      pkceCodeVerifier: first.verifier,
      expectedState: first.state,
    });
    expect(t1.scope).toBe('lights:read');
    // Same request for lights:read only: straight back with a code, no consent page.
    const again = await startFlow(app.config, { scope: 'lights:read' });
    const res = await b.fetch(again.url);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const grants = (await h.admin('GET', `/admin/users/${user.id}/grants`)).body as {
      consent_grants: Array<{ client_id: string; scopes: string[] }>;
      broker_grants: unknown[];
    };
    expect(grants.broker_grants).toEqual([]);
    expect(grants.consent_grants.find((g) => g.client_id === app.id)?.scopes).toEqual(['lights:read']);
  });

  test('deny redirects to the client with access_denied and state', async () => {
    const app = await phoneApp();
    const flow = await startFlow(app.config);
    const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, user, { action: 'deny' });
    expect(cb.searchParams.get('error')).toBe('access_denied');
    expect(cb.searchParams.get('state')).toBe(flow.state);
    expect(cb.searchParams.get('iss')).toBe(h.auth);
  });

  test('a replayed code is refused and the tokens issued from it are revoked', async () => {
    const app = await phoneApp();
    const flow = await startFlow(app.config);
    const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    const tokens = await client.authorizationCodeGrant(app.config, cb, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    await expect(
      client.authorizationCodeGrant(app.config, cb, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(app.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const jti = decodeJwt(tokens.access_token).jti!;
    const view = (await h.admin('GET', `/admin/issuances?jti=${jti}`)).body as {
      issuances: Array<{ revoked_at?: string }>;
      since: string;
    };
    expect(view.since).toBe('0001-01-01T00:00:00Z');
    expect(view.issuances[0]?.revoked_at).toBeTruthy();
  });

  test('RFC 7009 revocation of a refresh token takes its family with it', async () => {
    const app = await phoneApp();
    const flow = await startFlow(app.config);
    const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    const tokens = await client.authorizationCodeGrant(app.config, cb, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    const next = await client.refreshTokenGrant(app.config, tokens.refresh_token!);
    await client.tokenRevocation(app.config, next.refresh_token!, { token_type_hint: 'refresh_token' });
    await expect(client.refreshTokenGrant(app.config, next.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const iss = (await h.admin('GET', `/admin/issuances?client=${app.id}`)).body as {
      issuances: Array<{ revoked_at?: string }>;
    };
    expect(iss.issuances).toHaveLength(2);
    expect(iss.issuances.every((i) => i.revoked_at)).toBe(true);
  });

  test('PKCE: wrong verifier and missing verifier are refused', async () => {
    const app = await phoneApp();
    const flow = await startFlow(app.config);
    const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    const post = (body: Record<string, string>) =>
      fetch(`${h.auth}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: app.id,
          code: cb.searchParams.get('code')!,
          redirect_uri: 'http://127.0.0.1:49152/callback',
          ...body,
        }),
      });
    const missing = await post({});
    expect((await missing.json()).error).toBe('invalid_request');
    const wrong = await post({ code_verifier: client.randomPKCECodeVerifier() });
    expect((await wrong.json()).error).toBe('invalid_grant');
    const otherRedirect = await post({
      code_verifier: flow.verifier,
      redirect_uri: 'http://127.0.0.1:1/callback',
    });
    expect((await otherRedirect.json()).error).toBe('invalid_grant');
  });

  test('authorization requests without PKCE, with plain, or with a bad scope are refused at the client', async () => {
    const app = await phoneApp();
    const b = new Browser(h.auth);
    const base = {
      client_id: app.id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      resource: site,
      state: 'st',
    };
    const go = async (q: Record<string, string>) =>
      new URL((await b.fetch(`/oauth/authorize?${new URLSearchParams(q)}`)).headers.get('location')!, h.auth);
    expect((await go(base)).searchParams.get('error')).toBe('invalid_request');
    const plain = await go({ ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
    expect(plain.searchParams.get('error')).toBe('invalid_request');
    const s256 = { ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' };
    expect((await go({ ...s256, scope: 'translate' })).searchParams.get('error')).toBe('invalid_scope');
    expect((await go({ ...s256, response_type: 'token' })).searchParams.get('error')).toBe(
      'unsupported_response_type',
    );
    expect((await go({ ...s256, resource: 'urn:nope' })).searchParams.get('error')).toBe('invalid_target');
    expect((await go(s256)).toString()).toContain('/login?redirect=');
    // OAuth 2.1: confidential clients need PKCE too.
    const web = await adminClient(h, {
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'native',
    });
    expect((await go({ ...base, client_id: web.client_id })).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  test('request and request_uri are refused (request_not_supported, request_uri_not_supported), never ignored for a code; discovery says so', async () => {
    const app = await phoneApp();
    const b = new Browser(h.auth);
    // Signed in with consent given: a request that were ignored would come straight back with a code.
    const flow = await startFlow(app.config);
    await authorizeInBrowser(b, flow.url, user);
    const again = await startFlow(app.config);
    const go = async (extra: Record<string, string>) => {
      const url = new URL(again.url);
      for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
      const res = await b.fetch(url.toString());
      expect(res.status).toBe(303);
      return new URL(res.headers.get('location')!, h.auth).searchParams;
    };
    const withRequest = await go({ request: 'eyJhbGciOiJub25lIn0.eyJzY29wZSI6ImxpZ2h0czpyZWFkIn0.' });
    expect(withRequest.get('error')).toBe('request_not_supported');
    expect(withRequest.get('code')).toBeNull();
    expect(withRequest.get('state')).toBe(again.state);
    const withUri = await go({ request_uri: 'https://client.example/request.jwt' });
    expect(withUri.get('error')).toBe('request_uri_not_supported');
    expect(withUri.get('code')).toBeNull();
    const meta = (await (await fetch(`${h.auth}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.request_parameter_supported).toBe(false);
    expect(meta.request_uri_parameter_supported).toBe(false);
    // Without them the same request still gets its code.
    expect((await go({})).get('code')).toBeTruthy();
  });

  test('unknown client or unregistered redirect URI: an error page, never a redirect (RFC 9700 §4.11)', async () => {
    const app = await phoneApp();
    const b = new Browser(h.auth);
    for (const q of [
      { client_id: 'nope', redirect_uri: REDIRECT },
      { client_id: app.id, redirect_uri: 'https://evil.example/cb' },
      { client_id: app.id, redirect_uri: 'http://127.0.0.1/other' },
      { client_id: app.id },
    ]) {
      const res = await b.fetch(`/oauth/authorize?${new URLSearchParams({ ...q, response_type: 'code' })}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('access-control-allow-origin')).toBeNull(); // RFC 9700 §2.6: no CORS here
    }
  });
});

describe('login and consent pages', () => {
  test('security headers and cookie flags', async () => {
    const b = new Browser(h.auth);
    const res = await b.fetch('/login');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // plain HTTP here
  });

  test('bad CSRF token, bad credentials: 422 with the page re-rendered; success: 303 to a safe path', async () => {
    const b = new Browser(h.auth);
    await b.fetch('/login');
    const noCsrf = await b.post('/login', {
      csrf_token: 'x',
      email: user.email,
      password: user.password,
      redirect: '/',
    });
    expect(noCsrf.status).toBe(422);
    expect(await noCsrf.text()).toContain('<form');
    const page = await (await b.fetch('/login')).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)![1]!;
    const bad = await b.post('/login', {
      csrf_token: csrf,
      email: user.email,
      password: 'wrong password',
      redirect: '/',
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('Invalid email or password');
    const unknown = await b.post('/login', {
      csrf_token: csrf,
      email: 'nobody@home.test',
      password: 'wrong password',
      redirect: '/',
    });
    expect(unknown.status).toBe(422);
    // Spec rule 5: a bad form (missing password, repeated email) is a 422 re-render too.
    for (const form of [
      { csrf_token: csrf, email: user.email, redirect: '/' },
      { csrf_token: csrf, email: [user.email, user.email], password: user.password, redirect: '/' },
    ]) {
      const res = await b.post('/login', form);
      expect(res.status).toBe(422);
      expect(await res.text()).toContain('name="password"');
    }
    const ok = await b.post('/login', {
      csrf_token: csrf,
      email: user.email,
      password: user.password,
      redirect: '//evil.example/x',
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/');
  });

  test('logout needs the CSRF token of the signed-in page; a forged one keeps the session', async () => {
    const b = new Browser(h.auth);
    const signedIn = await login(b, user.email, user.password);
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('hearth_session='))!;
    for (const flag of ['HttpOnly', 'SameSite=Lax', 'Path=/']) expect(session).toContain(flag);
    expect(session).toMatch(/Max-Age=86400/);
    const home = await b.fetch('/');
    expect(home.status).toBe(200);
    const csrf = hidden(await home.text(), 'csrf_token');
    // A cross-site form (no token, or someone else's) does not end the session.
    for (const form of [{}, { csrf_token: 'forged' }]) {
      const refused = await b.post('/logout', form);
      expect(refused.status).toBe(403);
      expect(refused.headers.getSetCookie()).toEqual([]);
      expect((await b.fetch('/')).status).toBe(200);
    }
    const out = await b.post('/logout', { csrf_token: csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.getSetCookie().join()).toMatch(/hearth_session=;.*Max-Age=0/);
    expect((await b.fetch('/')).status).toBe(303);
  });

  test('consent page and authorize error page carry the same security headers', async () => {
    const { b, consentUrl } = await toConsent('scenes:apply');
    const consent = await b.fetch(consentUrl);
    const error = await b.fetch(`/oauth/authorize?client_id=nope&response_type=code`);
    for (const page of [consent, error]) {
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('access-control-allow-origin')).toBeNull(); // RFC 9700 §2.6
    }
    // No external assets: nothing is loaded from another origin.
    expect(await consent.text()).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  test('consent POST without the session-bound CSRF token is refused', async () => {
    const { b, consentUrl } = await toConsent('sensors:write');
    const html = await (await b.fetch(consentUrl)).text();
    const sessionId = /name="session_id" value="([^"]+)"/.exec(html)![1]!;
    const forged = await b.post('/consent', {
      session_id: sessionId,
      csrf_token: 'forged',
      action: 'allow',
      scopes: 'sensors:write',
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    // With the right token: zero scopes, or one that was not requested, re-renders the page (422).
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
    for (const scopes of [[], ['site:admin']]) {
      const res = await b.post('/consent', {
        session_id: sessionId,
        csrf_token: csrf,
        action: 'allow',
        scopes,
      });
      expect(res.status).toBe(422);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('name="scopes" value="sensors:write"');
    }
    // Another browser (no session) cannot use the pending request either.
    const other = await new Browser(h.auth).post('/consent', {
      session_id: sessionId,
      csrf_token: 'x',
      action: 'allow',
    });
    expect(other.status).toBe(403);
  });
});
