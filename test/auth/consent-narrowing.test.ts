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

async function grantOf(clientId: string) {
  const res = await h.admin('GET', `/admin/users/${user.id}/grants`);
  return (res.body as { consent_grants: Array<{ client_id: string; scopes: string[] }> }).consent_grants.find(
    (g) => g.client_id === clientId,
  );
}

describe('narrowing a consent grant narrows what was issued under it', () => {
  test('after the user withdraws a scope, a refresh no longer yields it and live tokens carrying it are revoked', async () => {
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    const first = await codeRequest(app.config, { resource: site, scope: 'lights:read lights:write' });
    const tokens = await client.authorizationCodeGrant(
      app.config,
      await authorizeInBrowser(b, first.url, user),
      {
        pkceCodeVerifier: first.verifier,
        expectedState: first.state,
      },
    );
    expect(tokens.scope).toBe('lights:read lights:write');

    // A later request asks for one more scope; on the consent page the user keeps only lights:read.
    const second = await codeRequest(app.config, {
      resource: site,
      scope: 'lights:read lights:write scenes:apply',
    });
    const cb = await authorizeInBrowser(b, second.url, user, { action: 'allow', scopes: ['lights:read'] });
    expect(cb.searchParams.get('code')).toBeTruthy();
    expect((await grantOf(app.id))?.scopes).toEqual(['lights:read']);

    // The access token that carried lights:write is revoked at once.
    const live = await liveTokens(h, app.id);
    expect(live.map((t) => t.jti)).not.toContain(decodeJwt(tokens.access_token).jti);
    // The refresh token issued before now yields only what is still granted …
    const refreshed = await client.refreshTokenGrant(app.config, tokens.refresh_token!);
    expect(refreshed.scope).toBe('lights:read');
    expect(decodeJwt(refreshed.access_token).scope).toBe('lights:read');
    // … and asking for the withdrawn scope explicitly is refused (RFC 6749 §5.2).
    await expect(
      client.refreshTokenGrant(app.config, refreshed.refresh_token!, { scope: 'lights:read lights:write' }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  test('scopes granted earlier and not asked for again stay granted', async () => {
    const app = await phoneApp(h);
    const b = new Browser(h.auth);
    const first = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
    await authorizeInBrowser(b, first.url, user);
    const second = await codeRequest(app.config, { resource: site, scope: 'scenes:apply' });
    await authorizeInBrowser(b, second.url, user);
    expect((await grantOf(app.id))?.scopes.sort()).toEqual(['lights:read', 'scenes:apply']);
  });

  test('introspection of a refresh token under a narrowed consent shows the narrowed scope', async () => {
    const c = await adminClient(h, {
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'native',
    });
    const config = await client.discovery(
      new URL(h.auth),
      c.client_id,
      undefined,
      client.ClientSecretBasic(c.client_secret!),
      { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
    );
    const b = new Browser(h.auth);
    const first = await codeRequest(config, { resource: site, scope: 'lights:read lights:write' });
    const tokens = await client.authorizationCodeGrant(config, await authorizeInBrowser(b, first.url, user), {
      pkceCodeVerifier: first.verifier,
      expectedState: first.state,
    });
    const second = await codeRequest(config, {
      resource: site,
      scope: 'lights:read lights:write sensors:write',
    });
    await authorizeInBrowser(b, second.url, user, { action: 'allow', scopes: ['lights:write'] });
    const info = await client.tokenIntrospection(config, tokens.refresh_token!);
    expect(info).toMatchObject({ active: true, scope: 'lights:write' });
  });
});
