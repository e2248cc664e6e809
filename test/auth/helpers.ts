import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { expect } from 'vitest';
import { startTestHub, type TestHub, type TestHubOptions } from '../helpers/hub.ts';

export interface AuthHub extends TestHub {
  /** Base URL of the authorization server (the issuer). */
  auth: string;
}

export async function startAuthHub(opts: TestHubOptions = {}): Promise<AuthHub> {
  // No plugins.auth.host: the listener follows the hub's address (127.0.0.1 in tests).
  const h = await startTestHub({ plugins: ['lighting', 'auth'], ...opts });
  return Object.assign(h, { auth: h.listenerUrl('auth') });
}

/** The resource URI of a lighting site (what clients pass as RFC 8707 `resource`). */
export async function siteResourceUri(h: TestHub, siteId?: string): Promise<string> {
  const list = (await h.admin('GET', '/admin/resources')).body as Array<{ uri: string }>;
  const want = siteId ? `urn:hearth:site:${encodeURIComponent(siteId)}` : undefined;
  const r = list.find((x) => (want ? x.uri === want : x.uri.startsWith('urn:hearth:site:')));
  if (!r) throw new Error('no site resource');
  return r.uri;
}

export interface MadeClient {
  client_id: string;
  client_secret?: string;
}

export async function adminClient(h: TestHub, body: Record<string, unknown>): Promise<MadeClient> {
  const res = await h.admin('POST', '/admin/clients', {
    client_name: 'test client',
    redirect_uris: [],
    grant_types: ['client_credentials'],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: '',
    agent: false,
    agent_description: '',
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as MadeClient;
}

export async function adminUser(
  h: TestHub,
  email = 'ann@home.test',
  password = 'correct horse battery',
): Promise<{ id: string; email: string; password: string }> {
  const res = await h.admin('POST', '/admin/users', { email, name: 'Ann', password, role: 'user' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: (res.body as { id: string }).id, email, password };
}

/** oauth4webapi discovery against the loopback server. */
export async function discover(h: AuthHub): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(h.auth);
  const res = await oauth.discoveryRequest(issuer, {
    algorithm: 'oauth2',
    [oauth.allowInsecureRequests]: true,
  });
  return oauth.processDiscoveryResponse(issuer, res);
}

/** A minimal cookie jar for one origin (enough for the login and consent pages). */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0)
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/max-age=0/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  post(url: string, form: Record<string, string | string[]>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
    return this.fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
}

export const hidden = (html: string, name: string): string => {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no hidden field ${name}`);
  return m[1]!.replace(/&amp;/g, '&');
};

/** Signs in through the real login page; returns the 303 response. */
export async function login(b: Browser, email: string, password: string, redirect = '/'): Promise<Response> {
  const page = await b.fetch(`/login?redirect=${encodeURIComponent(redirect)}`);
  const html = await page.text();
  return b.post('/login', {
    csrf_token: hidden(html, 'csrf_token'),
    redirect: hidden(html, 'redirect'),
    email,
    password,
  });
}

/**
 * Walks a browser through /oauth/authorize → /login → /consent and returns the final redirect to the client
 * (the callback URL with code/state/iss, or the error).
 */
export async function authorizeInBrowser(
  b: Browser,
  authorizationUrl: string,
  user: { email: string; password: string },
  consent: { action: 'allow' | 'deny'; scopes?: string[] } = { action: 'allow' },
): Promise<URL> {
  let res = await b.fetch(authorizationUrl);
  if (res.status === 303 && res.headers.get('location')!.startsWith('/login')) {
    const target = new URL(res.headers.get('location')!, b.base).searchParams.get('redirect')!;
    res = await login(b, user.email, user.password, target);
    expect(res.status).toBe(303);
    res = await b.fetch(res.headers.get('location')!);
  }
  expect(res.status).toBe(303);
  let location = res.headers.get('location')!;
  if (location.startsWith('/consent')) {
    const page = await b.fetch(location);
    expect(page.status).toBe(200);
    const html = await page.text();
    const offered = [...html.matchAll(/name="scopes" value="([^"]+)"/g)].map((m) => m[1]!);
    res = await b.post('/consent', {
      session_id: hidden(html, 'session_id'),
      csrf_token: hidden(html, 'csrf_token'),
      action: consent.action,
      scopes: consent.scopes ?? offered,
    });
    expect(res.status).toBe(303);
    location = res.headers.get('location')!;
  }
  return new URL(location);
}

/** A phone app: a public native client with the code flow (and refresh tokens), configured for openid-client. */
export async function phoneApp(
  h: AuthHub,
  opts: { redirect?: string; grants?: string[] } = {},
): Promise<{ id: string; config: oidc.Configuration }> {
  const c = await adminClient(h, {
    client_name: 'Phone app',
    redirect_uris: [opts.redirect ?? 'http://127.0.0.1/callback'],
    grant_types: opts.grants ?? ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const config = await oidc.discovery(new URL(h.auth), c.client_id, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
    algorithm: 'oauth2',
  });
  return { id: c.client_id, config };
}

/** Builds an authorization request (PKCE S256, state) for a loopback redirect on an arbitrary port. */
export async function codeRequest(
  config: oidc.Configuration,
  params: { resource: string; scope: string; redirect_uri?: string },
): Promise<{ url: string; verifier: string; state: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: 'http://127.0.0.1:49152/callback',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  return { url: url.toString(), verifier, state };
}

/** Live (unexpired, unrevoked) access tokens of a client, as the admin API lists them. */
export async function liveTokens(h: TestHub, clientId: string): Promise<Array<{ jti: string }>> {
  const res = await h.admin('GET', `/admin/tokens?client_id=${encodeURIComponent(clientId)}`);
  expect(res.status).toBe(200);
  return (res.body as { tokens: Array<{ jti: string }> }).tokens;
}
