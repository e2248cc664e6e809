import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminUser,
  Browser,
  codeRequest,
  phoneApp,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

let h: AuthHub;
let site: string;

beforeAll(async () => {
  h = await startAuthHub();
  site = await siteResourceUri(h);
  await adminUser(h);
});
afterAll(async () => {
  await h?.stop();
});

describe('loopback redirect URIs at /oauth/authorize', () => {
  test('loopback redirect URIs normalised before matching are refused: only the port may differ', async () => {
    const app = await phoneApp(h, { redirect: 'http://127.0.0.1/cb' });
    const b = new Browser(h.auth);
    const attempt = async (redirect_uri: string) =>
      b.fetch((await codeRequest(app.config, { resource: site, scope: 'lights:read', redirect_uri })).url);
    // Another port is fine (RFC 8252 §7.3): on to the login page.
    const ok = await attempt('http://127.0.0.1:53682/cb');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toMatch(/^\/login\?/);
    for (const uri of [
      'http://127.0.0.1:53682/x/../cb',
      'http://127.1:53682/cb',
      'http://user@127.0.0.1:53682/cb',
      'http://127.0.0.1:53682/cb/',
      'http://127.0.0.1:53682/%63b',
      'http://localhost:53682/cb',
    ]) {
      const res = await attempt(uri);
      expect(res.status, uri).toBe(400);
      expect(res.headers.get('location'), uri).toBeNull();
    }
  });
});
