import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, SignJWT } from 'jose';
import mqtt from 'mqtt';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  discover,
  phoneApp,
  startAuthHub,
} from './helpers.ts';

interface Site {
  siteid: string;
  sitekey: string;
}

const insecure = { [oauth.allowInsecureRequests]: true } as const;
let h: AuthHub;
let as: oauth.AuthorizationServer;
let site: Site;
let siteUri: string;

beforeAll(async () => {
  h = await startAuthHub({ plugins: ['lighting', 'auth', 'translation'] });
  as = await discover(h);
  site = (await h.admin('POST', '/admin/sites', { name: 'Flat' })).body as Site;
  siteUri = `urn:hearth:site:${site.siteid}`;
});
afterAll(async () => {
  await h?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

const thumbprint = async (kp: CryptoKeyPair) => calculateJwkThumbprint(await exportJWK(kp.publicKey));

/** A proof made by hand, for the cases a real client never produces. */
async function proof(
  kp: CryptoKeyPair,
  claims: { htm: string; htu: string; ath?: string; nonce?: string; iat?: number; jti?: string },
): Promise<string> {
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(kp.publicKey) })
    .sign(kp.privateKey);
}

async function machine(hub: AuthHub, scope: string, resource: string) {
  return adminClient(hub, { client_name: 'dpop switch', scope, resources: [resource] });
}

/** oauth4webapi's client-credentials grant with a DPoP handle. */
async function ccToken(
  server: oauth.AuthorizationServer,
  c: { client_id: string; client_secret?: string },
  dpop: oauth.DPoPHandle | undefined,
  params: Record<string, string>,
) {
  const client = { client_id: c.client_id };
  const res = await oauth.clientCredentialsGrantRequest(
    server,
    client,
    oauth.ClientSecretBasic(c.client_secret!),
    new URLSearchParams(params),
    { ...insecure, ...(dpop ? { DPoP: dpop } : {}) },
  );
  return oauth.processClientCredentialsResponse(server, client, res);
}

const basic = (c: { client_id: string; client_secret?: string }) =>
  `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`;

/** A raw token request with a hand-made DPoP header (or several). */
const rawToken = (
  c: { client_id: string; client_secret?: string },
  dpop: string | string[],
  resource: string,
) => {
  const headers = new Headers({ authorization: basic(c) });
  for (const p of [dpop].flat()) headers.append('dpop', p);
  return fetch(`${h.auth}/oauth/token`, {
    method: 'POST',
    headers,
    body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
  });
};

describe('discovery and settings', () => {
  test('dpop_signing_alg_values_supported lists the asymmetric algorithms; system config reflects the settings', async () => {
    expect(as.dpop_signing_alg_values_supported).toEqual([
      'ES256',
      'ES384',
      'Ed25519',
      'EdDSA',
      'RS256',
      'PS256',
    ]);
    const cfg = await h.admin('GET', '/admin/system/config');
    expect((cfg.body as { dpop: unknown }).dpop).toEqual({
      enabled: true,
      nonce_ttl: '300s',
      require_nonce: false,
    });
  });

  test('with DPoP off nothing is advertised and a proof is ignored (a Bearer token)', async () => {
    const off = await startAuthHub({ config: { plugins: { auth: { dpop: { enabled: false } } } } });
    try {
      const server = await discover(off);
      expect(server).not.toHaveProperty('dpop_signing_alg_values_supported');
      expect(((await off.admin('GET', '/admin/system/config')).body as { dpop: unknown }).dpop).toEqual({
        enabled: false,
        require_nonce: false,
      });
      const c = await adminClient(off, { scope: 'translate', resources: ['urn:hearth:translation'] });
      const kp = await oauth.generateKeyPair('ES256');
      const t = await ccToken(server, c, oauth.DPoP({}, kp), {
        resource: 'urn:hearth:translation',
      });
      expect(t.token_type).toBe('bearer');
      expect(decodeJwt(t.access_token)).not.toHaveProperty('cnf');
    } finally {
      await off.stop();
    }
  });
});

describe('token endpoint', () => {
  test('a client-credentials token is bound to the proof key: token_type DPoP, cnf.jkt, issuance dpop_jkt, introspection cnf', async () => {
    const c = await machine(h, 'lights:read', siteUri);
    const kp = await oauth.generateKeyPair('ES256');
    const t = await ccToken(as, c, oauth.DPoP({}, kp), { resource: siteUri });
    expect(t.token_type).toBe('dpop');
    const jkt = await thumbprint(kp);
    const claims = decodeJwt(t.access_token);
    expect(claims.cnf).toEqual({ jkt });
    const issued = await h.admin('GET', `/admin/issuances?jti=${claims.jti}`);
    expect((issued.body as { issuances: Array<{ dpop_jkt?: string }> }).issuances[0]!.dpop_jkt).toBe(jkt);
    const intro = await fetch(`${h.auth}/oauth/introspect`, {
      method: 'POST',
      headers: { authorization: basic(c) },
      body: new URLSearchParams({ token: t.access_token }),
    });
    expect(await intro.json()).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
  });

  test('every algorithm advertised binds a token (RS256, PS256, Ed25519, ES384)', async () => {
    const c = await machine(h, 'lights:read', siteUri);
    for (const alg of ['RS256', 'PS256', 'Ed25519', 'ES384']) {
      const kp = await oauth.generateKeyPair(alg);
      const t = await ccToken(as, c, oauth.DPoP({}, kp), { resource: siteUri });
      expect(decodeJwt(t.access_token).cnf, alg).toEqual({ jkt: await thumbprint(kp) });
    }
  });

  test('negative: a replayed proof, wrong htm, wrong htu, two DPoP headers, a private key in the jwk, a stale iat', async () => {
    const c = await machine(h, 'lights:read', siteUri);
    const kp = await oauth.generateKeyPair('ES256', { extractable: true });
    const good = await proof(kp, { htm: 'POST', htu: `${h.auth}/oauth/token` });
    expect((await rawToken(c, good, siteUri)).status).toBe(200);
    const expectRefused = async (res: Response, why: string) => {
      expect(res.status, why).toBe(400);
      expect(((await res.json()) as { error: string }).error, why).toBe('invalid_dpop_proof');
    };
    await expectRefused(await rawToken(c, good, siteUri), 'replay');
    await expectRefused(
      await rawToken(c, await proof(kp, { htm: 'GET', htu: `${h.auth}/oauth/token` }), siteUri),
      'htm',
    );
    await expectRefused(
      await rawToken(c, await proof(kp, { htm: 'POST', htu: `${h.auth}/oauth/introspect` }), siteUri),
      'htu',
    );
    await expectRefused(
      await rawToken(
        c,
        [
          await proof(kp, { htm: 'POST', htu: `${h.auth}/oauth/token` }),
          await proof(kp, { htm: 'POST', htu: `${h.auth}/oauth/token` }),
        ],
        siteUri,
      ),
      'two headers',
    );
    const withPrivate = await new SignJWT({
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      htm: 'POST',
      htu: `${h.auth}/oauth/token`,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(kp.privateKey) })
      .sign(kp.privateKey);
    await expectRefused(await rawToken(c, withPrivate, siteUri), 'private jwk');
    await expectRefused(
      await rawToken(
        c,
        await proof(kp, {
          htm: 'POST',
          htu: `${h.auth}/oauth/token`,
          iat: Math.floor(Date.now() / 1000) - 120,
        }),
        siteUri,
      ),
      'stale iat',
    );
    // The query string is not part of htu, and scheme/host case does not matter (RFC 9449 §4.3).
    const upper = h.auth.replace('http://', 'HTTP://');
    expect(
      (await rawToken(c, await proof(kp, { htm: 'POST', htu: `${upper}/oauth/token?x=1` }), siteUri)).status,
    ).toBe(200);
  });
});

describe('server nonces (require_nonce)', () => {
  let nh: AuthHub;
  let server: oauth.AuthorizationServer;
  beforeAll(async () => {
    nh = await startAuthHub({
      config: { plugins: { auth: { dpop: { require_nonce: true, nonce_ttl: 60 } } } },
    });
    server = await discover(nh);
  });
  afterAll(async () => {
    await nh?.stop();
  });

  test('a proof without nonce gets use_dpop_nonce and a DPoP-Nonce; oauth4webapi retries with it', async () => {
    expect(((await nh.admin('GET', '/admin/system/config')).body as { dpop: unknown }).dpop).toEqual({
      enabled: true,
      nonce_ttl: '60s',
      require_nonce: true,
    });
    const c = await adminClient(nh, { scope: 'translate', resources: ['urn:hearth:translation'] });
    const handle = oauth.DPoP({}, await oauth.generateKeyPair('ES256'));
    const params = { resource: 'urn:hearth:translation' };
    let err: unknown;
    try {
      await ccToken(server, c, handle, params);
    } catch (e) {
      err = e;
    }
    expect(oauth.isDPoPNonceError(err)).toBe(true);
    // The handle remembered the nonce: the retry succeeds.
    const t = await ccToken(server, c, handle, params);
    expect(t.token_type).toBe('dpop');
  });

  test('negative: a stale nonce is use_dpop_nonce again, with a new nonce that works', async () => {
    const c = await adminClient(nh, { scope: 'translate', resources: ['urn:hearth:translation'] });
    const kp = await oauth.generateKeyPair('ES256');
    const send = (n?: string) =>
      proof(kp, { htm: 'POST', htu: `${nh.auth}/oauth/token`, ...(n ? { nonce: n } : {}) }).then((p) =>
        fetch(`${nh.auth}/oauth/token`, {
          method: 'POST',
          headers: { authorization: basic(c), dpop: p },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:hearth:translation' }),
        }),
      );
    const first = await send();
    expect(first.status).toBe(400);
    const nonce = first.headers.get('dpop-nonce')!;
    expect(nonce).toBeTruthy();
    const ok = await send(nonce);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('dpop-nonce')).toBeTruthy();
    // Only the clock moves (HTTP keeps working): two minutes later the 60 s nonce is stale.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 120_000 });
    const stale = await send(nonce);
    expect(stale.status).toBe(400);
    expect(((await stale.json()) as { error: string }).error).toBe('use_dpop_nonce');
    expect(stale.headers.get('www-authenticate') ?? '').not.toContain('Basic');
    const fresh = stale.headers.get('dpop-nonce')!;
    expect(fresh).not.toBe(nonce);
    expect((await send(fresh)).status).toBe(200);
    // A nonce that is not ours at all.
    expect((await send('x'.repeat(30))).status).toBe(400);
  });
});

describe('resources accept a bound token only with a proof for the request', () => {
  const url = () => new URL(`${h.url}/api/site/${site.siteid}/light`);

  test('site API: DPoP scheme with a proof works; the same token as Bearer, a replayed proof, a proof for another URL or method, another key are refused', async () => {
    const c = await machine(h, 'lights:read', siteUri);
    const kp = await oauth.generateKeyPair('ES256', { extractable: true });
    const handle = oauth.DPoP({}, kp);
    const t = await ccToken(as, c, handle, { resource: siteUri });
    const ok = await oauth.protectedResourceRequest(t.access_token, 'GET', url(), undefined, undefined, {
      ...insecure,
      DPoP: handle,
    });
    expect(ok.status).toBe(200);
    const call = (headers: Record<string, string>) => fetch(url(), { headers });
    // A DPoP-bound token presented as Bearer: refused like any refused token.
    expect((await call({ authorization: `Bearer ${t.access_token}` })).status).toBe(404);
    expect((await call({ authorization: `DPoP ${t.access_token}` })).status).toBe(404); // no proof
    const ath = (await import('../../plugins/auth/domain/dpop.ts')).accessTokenHash(t.access_token);
    const good = await proof(kp, { htm: 'GET', htu: url().href, ath });
    expect((await call({ authorization: `DPoP ${t.access_token}`, dpop: good })).status).toBe(200);
    expect((await call({ authorization: `DPoP ${t.access_token}`, dpop: good })).status).toBe(404); // replay
    const elsewhere = await proof(kp, { htm: 'GET', htu: `${h.url}/api/site/${site.siteid}/group`, ath });
    expect((await call({ authorization: `DPoP ${t.access_token}`, dpop: elsewhere })).status).toBe(404);
    const otherMethod = await proof(kp, { htm: 'POST', htu: url().href, ath });
    expect((await call({ authorization: `DPoP ${t.access_token}`, dpop: otherMethod })).status).toBe(404);
    const noAth = await proof(kp, { htm: 'GET', htu: url().href });
    expect((await call({ authorization: `DPoP ${t.access_token}`, dpop: noAth })).status).toBe(404);
    const other = await oauth.generateKeyPair('ES256', { extractable: true });
    const wrongKey = await proof(other, { htm: 'GET', htu: url().href, ath });
    expect((await call({ authorization: `DPoP ${t.access_token}`, dpop: wrongKey })).status).toBe(404);
    // An unbound token under the DPoP scheme is refused too; as Bearer it works.
    const bearer = await ccToken(as, c, undefined, { resource: siteUri });
    expect(
      (
        await call({
          authorization: `DPoP ${bearer.access_token}`,
          dpop: await proof(kp, { htm: 'GET', htu: url().href }),
        })
      ).status,
    ).toBe(404);
    expect((await call({ authorization: `Bearer ${bearer.access_token}` })).status).toBe(200);
  });

  test('site WebSocket: the upgrade carries the proof; without one, or as Bearer, it is refused', async () => {
    const c = await machine(h, 'lights:read', siteUri);
    const kp = await oauth.generateKeyPair('ES256');
    const t = await ccToken(as, c, oauth.DPoP({}, kp), { resource: siteUri });
    const wsUrl = `${h.url.replace('http', 'ws')}/api/site/${site.siteid}/ws`;
    const open = (headers: Record<string, string>) =>
      new Promise<{ command?: string; status?: number }>((resolve) => {
        const ws = new WebSocket(wsUrl, { headers });
        ws.once('message', (d) => {
          resolve(JSON.parse(d.toString()) as { command: string });
          ws.close();
        });
        ws.once('unexpected-response', (_q, res) => resolve({ status: res.statusCode ?? 0 }));
      });
    const { accessTokenHash } = await import('../../plugins/auth/domain/dpop.ts');
    const ath = accessTokenHash(t.access_token);
    const forHttp = await proof(kp, { htm: 'GET', htu: wsUrl.replace('ws', 'http'), ath });
    expect(await open({ authorization: `DPoP ${t.access_token}`, dpop: forHttp })).toMatchObject({
      command: 'hello',
    });
    const forWs = await proof(kp, { htm: 'GET', htu: wsUrl, ath });
    expect(await open({ authorization: `DPoP ${t.access_token}`, dpop: forWs })).toMatchObject({
      command: 'hello',
    });
    expect(await open({ authorization: `DPoP ${t.access_token}`, dpop: forWs })).toEqual({ status: 404 }); // replay
    expect(await open({ authorization: `Bearer ${t.access_token}` })).toEqual({ status: 404 });
    expect(await open({ 'sec-websocket-protocol': `bearer, ${t.access_token}` })).toEqual({ status: 404 });
  });

  test('translation: /v2/usage takes a bound token with its proof; as Bearer it is 403', async () => {
    const c = await machine(h, 'translate', 'urn:hearth:translation');
    const kp = await oauth.generateKeyPair('ES256');
    const handle = oauth.DPoP({}, kp);
    const t = await ccToken(as, c, handle, { resource: 'urn:hearth:translation' });
    const usage = new URL(`${h.url}/v2/usage`);
    const ok = await oauth.protectedResourceRequest(t.access_token, 'GET', usage, undefined, undefined, {
      ...insecure,
      DPoP: handle,
    });
    expect(ok.status).toBe(200);
    const bearer = await fetch(usage, { headers: { authorization: `Bearer ${t.access_token}` } });
    expect(bearer.status).toBe(403);
  });

  test('MQTT cannot carry a proof: a bound token is no MQTT password', async () => {
    const c = await machine(h, 'lights:read', siteUri);
    const t = await ccToken(as, c, oauth.DPoP({}, await oauth.generateKeyPair('ES256')), {
      resource: siteUri,
    });
    const refused = await new Promise<string>((resolve) => {
      const m = mqtt.connect(h.mqttUrl, { username: 'device', password: t.access_token, reconnectPeriod: 0 });
      m.once('connect', () => {
        m.end();
        resolve('connected');
      });
      m.once('error', (err) => {
        m.end();
        resolve(
          (err as { code?: number }).code === 4 || (err as { code?: number }).code === 5
            ? 'refused'
            : String(err),
        );
      });
    });
    expect(refused).toBe('refused');
  });
});

describe('refresh tokens of public clients are bound to the DPoP key', () => {
  test('the same key refreshes; another key or no proof is invalid_grant and burns nothing', async () => {
    const user = await adminUser(h, 'dora@home.test');
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    const flow = await codeRequest(app.config, { resource: siteUri, scope: 'lights:read' });
    const callback = await authorizeInBrowser(b, flow.url, user);
    const kp = await oidc.randomDPoPKeyPair();
    const dpop = oidc.getDPoPHandle(app.config, kp);
    const tokens = await oidc.authorizationCodeGrant(
      app.config,
      callback,
      { pkceCodeVerifier: flow.verifier, expectedState: flow.state },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(kp) });

    const thief = oidc.getDPoPHandle(app.config, await oidc.randomDPoPKeyPair());
    await expect(
      oidc.refreshTokenGrant(app.config, tokens.refresh_token!, undefined, { DPoP: thief }),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(oidc.refreshTokenGrant(app.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // The owner's token was not used up by those attempts.
    const next = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!, undefined, { DPoP: dpop });
    expect(decodeJwt(next.access_token).cnf).toEqual({ jkt: await thumbprint(kp) });
    // The rotated token stays bound.
    await expect(
      oidc.refreshTokenGrant(app.config, next.refresh_token!, undefined, { DPoP: thief }),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
