/** The code flow in a real browser (Debian chromium via playwright-core): login, consent, callback. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { type AuthHub, adminClient, adminUser, siteResourceUri, startAuthHub } from './helpers.ts';

let h: AuthHub;
let browser: Browser;
let callbackServer: http.Server;
const callbacks: URL[] = [];

beforeAll(async () => {
  h = await startAuthHub();
  // The native app's loopback redirect target (RFC 8252 §7.3): records what the browser brings back.
  callbackServer = http.createServer((req, res) => {
    callbacks.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.setHeader('content-type', 'text/html');
    res.end('<p>You can close this window.</p>');
  });
  await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', r));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  callbackServer?.close();
  await h?.stop();
});

describe('code flow in chromium', () => {
  test('sign in, narrow the scopes on the consent page, come back with a code that redeems', async () => {
    const user = await adminUser(h, 'fay@home.test', 'fay password 123');
    const site = await siteResourceUri(h);
    const app = await adminClient(h, {
      client_name: 'Phone app',
      redirect_uris: ['http://127.0.0.1/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const config = await client.discovery(new URL(h.auth), app.client_id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/cb`;
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'lights:read lights:write',
      resource: site,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });

    const page = await browser.newPage();
    await page.goto(url.toString());
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForURL(/\/consent\?/), page.click('button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe(
      'Phone app wants permission to access Lighting site Home',
    );
    await page.uncheck('input[value="lights:write"]');
    await Promise.all([page.waitForURL(/\/cb\?/), page.click('button[value=allow]')]);

    const cb = callbacks.filter((u) => u.pathname === '/cb').at(-1)!; // not the favicon request
    expect(cb.searchParams.get('state')).toBe(state);
    expect(cb.searchParams.get('iss')).toBe(h.auth);
    const tokens = await client.authorizationCodeGrant(config, new URL(`${redirectUri}${cb.search}`), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.scope).toBe('lights:read');
    const cookies = await page.context().cookies(h.auth);
    expect(cookies.find((c) => c.name === 'hearth_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
    });
    await page.close();
  });
});
