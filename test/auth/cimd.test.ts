import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { isNonPublicAddress } from '../../plugins/auth/domain/safe-fetch.ts';
import { cacheSeconds, cimdUrlProblem } from '../../plugins/auth/oauth/cimd.ts';
import {
  type AuthHub,
  adminUser,
  authorizeInBrowser,
  Browser,
  login,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

const REDIRECT = 'http://127.0.0.1/callback';

/** An HTTPS server on loopback serving whatever documents the test puts in `routes`, counting requests. */
interface DocServer {
  origin: string;
  hits: Map<string, number>;
  routes: Map<string, { status?: number; type?: string; body: string; headers?: Record<string, string> }>;
  close(): Promise<void>;
}

let certDir: string;
let certFile: string;
let docs: DocServer;
let h: AuthHub;
let strict: AuthHub;
let user: { id: string; email: string; password: string };
let site: string;

async function startDocServer(): Promise<DocServer> {
  const hits = new Map<string, number>();
  const routes: DocServer['routes'] = new Map();
  const server = https.createServer(
    { cert: readFileSync(certFile), key: readFileSync(path.join(certDir, 'key.pem')) },
    (req, res) => {
      const p = req.url ?? '/';
      hits.set(p, (hits.get(p) ?? 0) + 1);
      const r = routes.get(p);
      if (!r) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(r.status ?? 200, { 'content-type': r.type ?? 'application/json', ...r.headers });
      res.end(r.body);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    routes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Publishes a metadata document at `path` and returns its URL (the client_id). */
function publish(
  p: string,
  doc: Record<string, unknown> | ((url: string) => Record<string, unknown>),
  opts = {},
) {
  const url = `${docs.origin}${p}`;
  docs.routes.set(p, { body: JSON.stringify(typeof doc === 'function' ? doc(url) : doc), ...opts });
  return url;
}

const appDoc = (url: string) => ({
  client_id: url,
  client_name: 'Garden planner',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

beforeAll(async () => {
  certDir = mkdtempSync(path.join(tmpdir(), 'hearth-cimd-'));
  certFile = path.join(certDir, 'cert.pem');
  // biome-ignore format: one flag per line pair reads better as a command line
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', path.join(certDir, 'key.pem'), '-out', certFile,
  ], { stdio: 'ignore' });
  docs = await startDocServer();
  h = await startAuthHub({
    config: {
      plugins: { auth: { cimd: { enabled: true, allow_private_networks: true, ca_file: certFile } } },
    },
  });
  strict = await startAuthHub({
    config: { plugins: { auth: { cimd: { enabled: true, ca_file: certFile } } } },
  });
  user = await adminUser(h, 'gina@home.test');
  site = await siteResourceUri(h);
});
afterAll(async () => {
  await h?.stop();
  await strict?.stop();
  await docs?.close();
  rmSync(certDir, { recursive: true, force: true });
});

async function config(clientId: string) {
  return oidc.discovery(new URL(h.auth), clientId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
}

async function authorizationUrl(clientId: string, extra: Record<string, string> = {}) {
  const c = await config(clientId);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(c, {
    redirect_uri: REDIRECT,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    scope: 'lights:read',
    resource: site,
    ...extra,
  });
  return { c, url: url.toString(), verifier, state };
}

describe('Client ID Metadata Documents', () => {
  test('advertised only when enabled', async () => {
    const meta = (await (await fetch(`${h.auth}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.client_id_metadata_document_supported).toBe(true);
  });

  test('a URL client_id signs a user in with openid-client; the document is fetched once and cached', async () => {
    const clientId = publish('/apps/garden.json', appDoc, { headers: { 'cache-control': 'max-age=600' } });
    const flow = await authorizationUrl(clientId);
    const b = new Browser(h.auth);
    // The consent page names the host that published the document.
    let res = await b.fetch(flow.url);
    const target = new URL(res.headers.get('location')!, h.auth).searchParams.get('redirect')!;
    res = await login(b, user.email, user.password, target);
    res = await b.fetch(res.headers.get('location')!);
    const consent = await (await b.fetch(res.headers.get('location')!)).text();
    expect(consent).toContain('Garden planner');
    expect(consent).toContain(`published by <strong>${new URL(docs.origin).host}</strong>`);
    const callback = await authorizeInBrowser(b, flow.url, user);
    const tokens = await oidc.authorizationCodeGrant(flow.c, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: clientId, aud: site });
    const refreshed = await oidc.refreshTokenGrant(flow.c, tokens.refresh_token!);
    expect(decodeJwt(refreshed.access_token).client_id).toBe(clientId);
    expect(docs.hits.get('/apps/garden.json')).toBe(1);
    // The admin API shows it as a client like any other.
    const view = (await h.admin('GET', `/admin/clients/${encodeURIComponent(clientId)}`)).body as Record<
      string,
      unknown
    >;
    expect(view).toMatchObject({
      id: clientId,
      registration_source: 'cimd',
      cimd_url: clientId,
      token_endpoint_auth_method: 'none',
      name: 'Garden planner',
    });
    const listed = (await h.admin('GET', '/admin/clients?source=cimd')).body as Array<{ id: string }>;
    expect(listed.map((c) => c.id)).toContain(clientId);
  });

  test('negative: documents that do not qualify are refused with an error page, never a redirect', async () => {
    const cases: Array<[string, (url: string) => Record<string, unknown>, Record<string, unknown>?]> = [
      ['/bad/other-id.json', (url) => ({ ...appDoc(url), client_id: `${url}x` })],
      ['/bad/secret.json', (url) => ({ ...appDoc(url), client_secret: 'shh' })],
      ['/bad/basic.json', (url) => ({ ...appDoc(url), token_endpoint_auth_method: 'client_secret_basic' })],
      ['/bad/cc.json', (url) => ({ ...appDoc(url), grant_types: ['client_credentials'] })],
      ['/bad/html.json', appDoc, { type: 'text/html' }],
      [
        '/bad/huge.json',
        (url) => ({ ...appDoc(url), client_name: 'x'.repeat(6000).slice(0, 200), pad: 'y'.repeat(6000) }),
      ],
      ['/bad/moved.json', appDoc, { status: 302, headers: { location: '/apps/garden.json' } }],
      ['/bad/missing.json', appDoc, { status: 404 }],
    ];
    for (const [p, doc, opts] of cases) {
      const clientId = publish(p, doc, opts);
      const flow = await authorizationUrl(clientId);
      const res = await new Browser(h.auth).fetch(flow.url);
      expect(res.status, p).toBe(400);
      expect(res.headers.get('location'), p).toBeNull();
      expect(await res.text(), p).toContain('Unknown application');
      expect(docs.hits.get(p), p).toBe(1);
      // A failure is remembered for a minute: asking again does not fetch again.
      expect((await new Browser(h.auth).fetch(flow.url)).status).toBe(400);
      expect(docs.hits.get(p), p).toBe(1);
    }
    // The redirect was not followed.
    expect(docs.hits.get('/apps/garden.json') ?? 0).toBeLessThanOrEqual(1);
    // A redirect_uri the document does not list.
    const clientId = publish('/apps/strict-redirect.json', appDoc);
    const flow = await authorizationUrl(clientId);
    const other = new URL(flow.url);
    other.searchParams.set('redirect_uri', 'https://evil.example/cb');
    const res = await new Browser(h.auth).fetch(other.toString());
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test('a host name is resolved through the guarded lookup and fetched when allowed', async () => {
    const byName = `${docs.origin.replace('127.0.0.1', 'localhost')}/apps/by-name.json`;
    docs.routes.set('/apps/by-name.json', { body: JSON.stringify(appDoc(byName)) });
    const flow = await authorizationUrl(byName);
    const res = await new Browser(h.auth).fetch(flow.url);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/login/);
    expect(docs.hits.get('/apps/by-name.json')).toBe(1);
  });

  test('negative: client_id URLs of the wrong shape are refused without any request', async () => {
    const before = [...docs.hits.values()].reduce((a, b) => a + b, 0);
    const base = docs.origin.replace('https', 'http');
    for (const id of [
      `${base}/apps/garden.json`,
      `${docs.origin}/apps/../apps/garden.json`,
      `${docs.origin}/apps/garden.json#frag`,
      `${docs.origin.replace('https://', 'https://user:pw@')}/apps/garden.json`,
      `${docs.origin}/`,
    ]) {
      const url = new URL(`${h.auth}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: site,
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, id).toBe(400);
    }
    expect([...docs.hits.values()].reduce((a, b) => a + b, 0)).toBe(before);
  });

  test('SSRF: by default loopback and private hosts are never contacted, by IP literal or by name', async () => {
    const clientId = publish('/ssrf/app.json', appDoc);
    const byName = clientId.replace('127.0.0.1', 'localhost');
    docs.routes.set('/ssrf/by-name.json', { body: JSON.stringify(appDoc(byName)) });
    for (const id of [clientId, byName.replace('/ssrf/app.json', '/ssrf/by-name.json')]) {
      const url = new URL(`${strict.auth}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, id).toBe(400);
      expect(await res.text()).toContain('not on a public network');
    }
    expect(docs.hits.get('/ssrf/app.json')).toBeUndefined();
    expect(docs.hits.get('/ssrf/by-name.json')).toBeUndefined();
  });
});

describe('CIMD cache and bounds', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test('the document is fetched again once its cache lifetime passed: new metadata, the admin’s suspension kept', async () => {
    const clientId = publish('/apps/refresh.json', appDoc, { headers: { 'cache-control': 'max-age=120' } });
    const flow = await authorizationUrl(clientId);
    expect((await new Browser(h.auth).fetch(flow.url)).status).toBe(303); // to the login page
    expect(docs.hits.get('/apps/refresh.json')).toBe(1);
    expect((await h.admin('PATCH', `/admin/clients/${encodeURIComponent(clientId)}/suspend`)).status).toBe(
      200,
    );
    publish('/apps/refresh.json', (url) => ({ ...appDoc(url), client_name: 'Garden planner 2' }));
    // Within the lifetime: the stored record answers (suspended: an error page, no fetch).
    expect((await new Browser(h.auth).fetch(flow.url)).status).toBe(400);
    expect(docs.hits.get('/apps/refresh.json')).toBe(1);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 121_000 });
    expect((await new Browser(h.auth).fetch(flow.url)).status).toBe(400);
    expect(docs.hits.get('/apps/refresh.json')).toBe(2);
    const view = (await h.admin('GET', `/admin/clients/${encodeURIComponent(clientId)}`)).body as Record<
      string,
      unknown
    >;
    expect(view).toMatchObject({ name: 'Garden planner 2', status: 'suspended' });
  });

  test('at most cimd.max_clients: a new one replaces the least recently fetched one without a consent', async () => {
    const small = await startAuthHub({
      config: {
        plugins: {
          auth: { cimd: { enabled: true, allow_private_networks: true, ca_file: certFile, max_clients: 2 } },
        },
      },
    });
    try {
      const ids = ['/bound/a.json', '/bound/b.json', '/bound/c.json'].map((p) => publish(p, appDoc));
      for (const id of ids) {
        const url = new URL(`${small.auth}/oauth/authorize`);
        url.search = new URLSearchParams({
          client_id: id,
          redirect_uri: REDIRECT,
          response_type: 'code',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        }).toString();
        expect((await fetch(url, { redirect: 'manual' })).status, id).toBe(303);
      }
      const listed = (await small.admin('GET', '/admin/clients?source=cimd')).body as Array<{ id: string }>;
      expect(listed.map((c) => c.id).sort()).toEqual([ids[1], ids[2]].sort());
    } finally {
      await small.stop();
    }
  });
});

describe('CIMD rules (units)', () => {
  test('client_id URL shape', () => {
    expect(cimdUrlProblem('https://app.example/client.json')).toBeNull();
    expect(cimdUrlProblem('https://app.example/c?x=1')).toBeNull();
    for (const bad of [
      'http://app.example/client.json',
      'https://app.example',
      'https://app.example/',
      'https://app.example/a/./b',
      'https://app.example/a/%2e%2e/b',
      'https://u@app.example/c',
      'https://app.example/c#f',
      'https://APP.example/c',
      'not a url',
    ])
      expect(cimdUrlProblem(bad), bad).not.toBeNull();
  });

  test('cache lifetime follows Cache-Control within 60 s and 24 h', () => {
    expect(cacheSeconds('')).toBe(3600);
    expect(cacheSeconds('max-age=600')).toBe(600);
    expect(cacheSeconds('public, max-age=5')).toBe(60);
    expect(cacheSeconds('max-age=99999999')).toBe(86400);
    expect(cacheSeconds('no-store')).toBe(60);
  });

  test('non-public addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.1.10',
      '172.20.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ])
      expect(isNonPublicAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isNonPublicAddress(a), a).toBe(false);
  });
});
