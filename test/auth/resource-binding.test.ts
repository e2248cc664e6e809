import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  phoneApp,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

let h: AuthHub;
let site: string;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  h = await startAuthHub();
  site = await siteResourceUri(h);
  user = await adminUser(h);
});
afterAll(async () => {
  await h?.stop();
});

/** Redeems a code with raw form parameters (to send repeated `resource` values). */
const redeem = (form: Array<[string, string]>) =>
  fetch(`${h.auth}/oauth/token`, { method: 'POST', body: new URLSearchParams(form) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

describe('RFC 8707 resource on the code and refresh grants', () => {
  test('resource is ignored on the code grant: a code for the site redeemed for translation is invalid_target', async () => {
    const app = await phoneApp(h);
    const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
    const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    const checks = { pkceCodeVerifier: flow.verifier, expectedState: flow.state };
    await expect(
      client.authorizationCodeGrant(app.config, cb, checks, { resource: 'urn:hearth:translation' }),
    ).rejects.toMatchObject({ error: 'invalid_target' });
    const base: Array<[string, string]> = [
      ['grant_type', 'authorization_code'],
      ['client_id', app.id],
      ['code', cb.searchParams.get('code')!],
      ['redirect_uri', 'http://127.0.0.1:49152/callback'],
      ['code_verifier', flow.verifier],
    ];
    const twice = await redeem([...base, ['resource', site], ['resource', 'urn:hearth:translation']]);
    expect(twice).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    // A refused target does not use the code up: the right resource still redeems it.
    const tokens = await client.authorizationCodeGrant(app.config, cb, checks, { resource: site });
    expect(decodeJwt(tokens.access_token).aud).toBe(site);
  });

  test('refresh: a resource other than the grant’s is invalid_target, a wider scope invalid_scope', async () => {
    const app = await phoneApp(h);
    const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read lights:write' });
    const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    const tokens = await client.authorizationCodeGrant(app.config, cb, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    const rt = tokens.refresh_token!;
    for (const resource of ['https://elsewhere.example/api', 'urn:hearth:translation']) {
      await expect(client.refreshTokenGrant(app.config, rt, { resource })).rejects.toMatchObject({
        error: 'invalid_target',
      });
    }
    await expect(
      client.refreshTokenGrant(app.config, rt, { scope: 'lights:read site:admin' }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
    // None of the refusals rotated the token; the right resource and a narrower scope work.
    const next = await client.refreshTokenGrant(app.config, rt, { resource: site, scope: 'lights:read' });
    expect(next.scope).toBe('lights:read');
    expect(decodeJwt(next.access_token).aud).toBe(site);
  });

  test('several resources in one request are invalid_target at /oauth/authorize and on client_credentials', async () => {
    const app = await phoneApp(h);
    const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
    const url = new URL(flow.url);
    url.searchParams.append('resource', 'urn:hearth:translation');
    const res = await new Browser(h.auth).fetch(url.toString());
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const m = await adminClient(h, { scope: 'lights:read translate' });
    const cc = await fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${m.client_id}:${m.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams([
        ['grant_type', 'client_credentials'],
        ['resource', site],
        ['resource', 'urn:hearth:translation'],
      ]),
    });
    expect(cc.status).toBe(400);
    expect(((await cc.json()) as { error: string }).error).toBe('invalid_target');
  });
});
