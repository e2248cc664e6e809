import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { exportJWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { accessTokenHash } from '../../plugins/auth/domain/dpop.ts';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  discover,
  startAuthHub,
} from './helpers.ts';

/**
 * RFC 9449 §4.3 item 9 and §11.1: a proof's `htu` is compared with this server's own URL of the endpoint,
 * never with one built from the request's Host header. Otherwise a proof captured at another server (made
 * for `http://as.other.example/oauth/token`) replays here by sending `Host: as.other.example`.
 */

const FORGED = 'as.other.example';
let h: AuthHub;
let siteUri: string;
let siteId: string;

beforeAll(async () => {
  h = await startAuthHub({ plugins: ['lighting', 'auth', 'translation'] });
  siteId = ((await h.admin('POST', '/admin/sites', { name: 'Flat' })).body as { siteid: string }).siteid;
  siteUri = `urn:hearth:site:${siteId}`;
});
afterAll(async () => {
  await h?.stop();
});

async function proof(kp: CryptoKeyPair, claims: { htm: string; htu: string; ath?: string }): Promise<string> {
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(kp.publicKey) })
    .sign(kp.privateKey);
}

/** A raw request with a chosen Host header (fetch does not let a caller set Host). */
function raw(
  url: string,
  opts: { method: string; host: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method, headers: { ...opts.headers, host: opts.host } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => {
          let body: Record<string, unknown> = {};
          try {
            body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            body = { text };
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const basic = (c: { client_id: string; client_secret?: string }) =>
  `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`;

async function boundToken(scope: string, resource: string, kp: CryptoKeyPair): Promise<string> {
  const c = await adminClient(h, { scope, resources: [resource] });
  const as = await discover(h);
  const res = await oauth.clientCredentialsGrantRequest(
    as,
    { client_id: c.client_id },
    oauth.ClientSecretBasic(c.client_secret!),
    new URLSearchParams({ resource }),
    { [oauth.allowInsecureRequests]: true, DPoP: oauth.DPoP({}, kp) },
  );
  return (await oauth.processClientCredentialsResponse(as, { client_id: c.client_id }, res)).access_token;
}

describe('DPoP htu is checked against the server’s own URL, not the Host header', () => {
  test('token endpoint: a proof for another server’s token endpoint sent with that Host is invalid_dpop_proof', async () => {
    const c = await adminClient(h, { scope: 'lights:read', resources: [siteUri] });
    const kp = await oauth.generateKeyPair('ES256', { extractable: true });
    const form = new URLSearchParams({ grant_type: 'client_credentials', resource: siteUri }).toString();
    const send = async (htu: string, host: string) =>
      raw(`${h.auth}/oauth/token`, {
        method: 'POST',
        host,
        headers: {
          authorization: basic(c),
          'content-type': 'application/x-www-form-urlencoded',
          dpop: await proof(kp, { htm: 'POST', htu }),
        },
        body: form,
      });
    const forged = await send(`http://${FORGED}/oauth/token`, FORGED);
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe('invalid_dpop_proof');
    // The server's own URL still works, whatever Host says.
    const own = await send(`${h.auth}/oauth/token`, FORGED);
    expect(own.status).toBe(200);
    expect(own.body.token_type).toBe('DPoP');
  });

  test('site API: a proof naming another host is refused even when Host names that host', async () => {
    const kp = await oauth.generateKeyPair('ES256', { extractable: true });
    const token = await boundToken('lights:read', siteUri, kp);
    const path = `/api/site/${siteId}/light`;
    const call = async (htu: string, host: string) =>
      raw(`${h.url}${path}`, {
        method: 'GET',
        host,
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await proof(kp, { htm: 'GET', htu, ath: accessTokenHash(token) }),
        },
      });
    expect((await call(`http://${FORGED}${path}`, FORGED)).status).toBe(404);
    expect((await call(`${h.url}${path}`, FORGED)).status).toBe(200);
  });

  test('translation API: a proof naming another host is refused even when Host names that host', async () => {
    const kp = await oauth.generateKeyPair('ES256', { extractable: true });
    const token = await boundToken('translate', 'urn:hearth:translation', kp);
    const call = async (htu: string, host: string) =>
      raw(`${h.url}/v2/usage`, {
        method: 'GET',
        host,
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await proof(kp, { htm: 'GET', htu, ath: accessTokenHash(token) }),
        },
      });
    expect((await call(`http://${FORGED}/v2/usage`, FORGED)).status).toBe(403);
    expect((await call(`${h.url}/v2/usage`, FORGED)).status).toBe(200);
  });

  test('userinfo: a proof for another server’s userinfo endpoint sent with that Host is refused', async () => {
    const user = await adminUser(h, 'forged-host@home.test');
    const redirect = 'http://127.0.0.1/callback';
    const c = await adminClient(h, {
      client_name: 'Household app',
      redirect_uris: [redirect],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const config = await oidc.discovery(new URL(h.auth), c.client_id, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirect,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const kp = await oauth.generateKeyPair('ES256', { extractable: true });
    const tokens = await oidc.authorizationCodeGrant(
      config,
      await authorizeInBrowser(new Browser(h.auth), url.href, user),
      { pkceCodeVerifier: verifier, expectedState: state },
      undefined,
      { DPoP: oidc.getDPoPHandle(config, kp) },
    );
    expect(tokens.token_type).toBe('dpop');
    const token = tokens.access_token;
    const call = async (htu: string, host: string) =>
      raw(`${h.auth}/oauth/userinfo`, {
        method: 'GET',
        host,
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await proof(kp, { htm: 'GET', htu, ath: accessTokenHash(token) }),
        },
      });
    const forged = await call(`http://${FORGED}/oauth/userinfo`, FORGED);
    expect(forged.status).toBe(401);
    expect(forged.body.sub).toBeUndefined();
    const own = await call(`${h.auth}/oauth/userinfo`, FORGED);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ sub: user.id, email: user.email });
  });

  test('a configured public URL of the main listener is the only origin a site-API proof may name', async () => {
    const proxied = await startAuthHub({
      plugins: ['lighting', 'auth'],
      config: { http: { main: { port: 0, publicUrl: 'https://hearth.example.net' } } },
    });
    try {
      const sid = (
        (await proxied.admin('POST', '/admin/sites', { name: 'Proxied' })).body as { siteid: string }
      ).siteid;
      const c = await adminClient(proxied, { scope: 'lights:read', resources: [`urn:hearth:site:${sid}`] });
      const kp = await oauth.generateKeyPair('ES256', { extractable: true });
      const as = await discover(proxied);
      const res = await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: c.client_id },
        oauth.ClientSecretBasic(c.client_secret!),
        new URLSearchParams({ resource: `urn:hearth:site:${sid}` }),
        { [oauth.allowInsecureRequests]: true, DPoP: oauth.DPoP({}, kp) },
      );
      const token = (await oauth.processClientCredentialsResponse(as, { client_id: c.client_id }, res))
        .access_token;
      const path = `/api/site/${sid}/light`;
      const call = async (htu: string) =>
        raw(`${proxied.url}${path}`, {
          method: 'GET',
          host: 'hearth.example.net',
          headers: {
            authorization: `DPoP ${token}`,
            dpop: await proof(kp, { htm: 'GET', htu, ath: accessTokenHash(token) }),
          },
        });
      expect((await call(`${proxied.url}${path}`)).status).toBe(404);
      expect((await call(`https://hearth.example.net${path}`)).status).toBe(200);
    } finally {
      await proxied.stop();
    }
  });
});
