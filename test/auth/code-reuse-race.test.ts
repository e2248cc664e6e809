import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  liveTokens,
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

const ROUNDS = 6;

/** Sends the same token request several times at once (separate connections, no awaiting in between). */
async function raceTokenRequests(body: Record<string, string>, copies: number) {
  const send = () =>
    fetch(`${h.auth}/oauth/token`, { method: 'POST', body: new URLSearchParams(body) }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { access_token?: string; refresh_token?: string; error?: string },
    }));
  return Promise.all(Array.from({ length: copies }, send));
}

describe('concurrent redemption of one authorization code', () => {
  test('code redeemed twice at the same moment: every token issued from it ends revoked, whatever the interleaving', async () => {
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    for (let round = 0; round < ROUNDS; round++) {
      const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
      const cb = await authorizeInBrowser(b, flow.url, user);
      const results = await raceTokenRequests(
        {
          grant_type: 'authorization_code',
          client_id: app.id,
          code: cb.searchParams.get('code')!,
          redirect_uri: 'http://127.0.0.1:49152/callback',
          code_verifier: flow.verifier,
        },
        round % 2 === 0 ? 2 : 3,
      );
      // At most one wins; the others are refused as reuse.
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error).toBe('invalid_grant');
      // Nothing issued from the code is still usable: no live access token, no working refresh token.
      expect(await liveTokens(h, app.id)).toEqual([]);
      for (const r of results.filter((x) => x.body.refresh_token)) {
        await expect(client.refreshTokenGrant(app.config, r.body.refresh_token!)).rejects.toMatchObject({
          error: 'invalid_grant',
        });
      }
    }
  });

  test('refresh token presented twice at the same moment: the winner’s new tokens are revoked with the family', async () => {
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    for (let round = 0; round < ROUNDS; round++) {
      const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
      const cb = await authorizeInBrowser(b, flow.url, user);
      const first = await client.authorizationCodeGrant(app.config, cb, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
      });
      const results = await raceTokenRequests(
        { grant_type: 'refresh_token', client_id: app.id, refresh_token: first.refresh_token! },
        2,
      );
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      expect(await liveTokens(h, app.id)).toEqual([]);
      for (const r of results.filter((x) => x.body.refresh_token)) {
        await expect(client.refreshTokenGrant(app.config, r.body.refresh_token!)).rejects.toMatchObject({
          error: 'invalid_grant',
        });
      }
    }
  });
});
