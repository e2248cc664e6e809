import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  phoneApp,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

let h: AuthHub;
let user: { id: string; email: string; password: string };
let site: string;

beforeAll(async () => {
  h = await startAuthHub();
  user = await adminUser(h, 'dora@home.test');
  site = await siteResourceUri(h);
});
afterAll(async () => {
  await h?.stop();
});

const thumbprint = async (kp: CryptoKeyPair) => calculateJwkThumbprint(await exportJWK(kp.publicKey));

/** An authorization request with RFC 9449 §10 `dpop_jkt`, walked through login and consent. */
async function boundCode(app: { config: oidc.Configuration }, jkt: string, b = new Browser(h.auth)) {
  const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
  const url = new URL(flow.url);
  url.searchParams.set('dpop_jkt', jkt);
  const callback = await authorizeInBrowser(b, url.toString(), user);
  return { flow, callback };
}

const redeem = (
  app: { config: oidc.Configuration },
  code: Awaited<ReturnType<typeof boundCode>>,
  dpop?: oidc.DPoPHandle,
) =>
  oidc.authorizationCodeGrant(
    app.config,
    code.callback,
    { pkceCodeVerifier: code.flow.verifier, expectedState: code.flow.state },
    undefined,
    dpop ? { DPoP: dpop } : {},
  );

describe('dpop_jkt on the authorization request (RFC 9449 §10)', () => {
  test('a bound code is redeemed only with a proof of that key; refused attempts do not use the code up', async () => {
    const app = await phoneApp(h);
    const owner = await oidc.randomDPoPKeyPair();
    const thief = await oidc.randomDPoPKeyPair();
    const code = await boundCode(app, await thumbprint(owner));
    // Negative: another key's proof, and no proof at all.
    await expect(redeem(app, code, oidc.getDPoPHandle(app.config, thief))).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(redeem(app, code)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The owner still redeems it, and the access token is bound to that key.
    const tokens = await redeem(app, code, oidc.getDPoPHandle(app.config, owner));
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(owner) });
  });

  test('a stored consent (no consent page) keeps the binding too', async () => {
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    const first = await oidc.randomDPoPKeyPair();
    await redeem(
      app,
      await boundCode(app, await thumbprint(first), b),
      oidc.getDPoPHandle(app.config, first),
    );
    // Second request in the same browser: the consent is stored, the code is issued at once.
    const second = await oidc.randomDPoPKeyPair();
    const code = await boundCode(app, await thumbprint(second), b);
    await expect(redeem(app, code, oidc.getDPoPHandle(app.config, first))).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const tokens = await redeem(app, code, oidc.getDPoPHandle(app.config, second));
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(second) });
  });

  test('a malformed or repeated dpop_jkt is invalid_request back to the client', async () => {
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    const kp = await oidc.randomDPoPKeyPair();
    await redeem(app, await boundCode(app, await thumbprint(kp), b), oidc.getDPoPHandle(app.config, kp));
    for (const values of [
      ['not a thumbprint'],
      ['A'.repeat(44)],
      [await thumbprint(kp), await thumbprint(kp)],
    ]) {
      const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
      const url = new URL(flow.url);
      for (const v of values) url.searchParams.append('dpop_jkt', v);
      const res = await b.fetch(url.toString());
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!);
      expect(back.searchParams.get('error'), values.join()).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe(flow.state);
      expect(back.searchParams.get('code')).toBeNull();
    }
  });
});
