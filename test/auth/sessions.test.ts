import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminUser,
  Browser,
  codeRequest,
  hidden,
  login,
  phoneApp,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

let h: AuthHub;
let site: string;

beforeAll(async () => {
  h = await startAuthHub();
  site = await siteResourceUri(h);
});
afterAll(async () => {
  await h?.stop();
});

/** A signed-in browser, and a second one holding a copy of its session cookie. */
async function signedInWithCopy(user: { email: string; password: string }) {
  const b = new Browser(h.auth);
  expect((await login(b, user.email, user.password)).status).toBe(303);
  const copy = new Browser(h.auth);
  for (const [k, v] of b.cookies) copy.cookies.set(k, v);
  expect((await copy.fetch('/')).status).toBe(200);
  return { b, copy };
}

/** Whether this browser can still get an authorization code without signing in. */
async function canMintCode(b: Browser, app: Awaited<ReturnType<typeof phoneApp>>): Promise<boolean> {
  const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
  const res = await b.fetch(flow.url);
  const location = res.headers.get('location') ?? '';
  return !location.startsWith('/login');
}

describe('browser sessions end on the server', () => {
  test('logout ends the session: a copied session cookie no longer signs in or mints codes', async () => {
    const user = await adminUser(h, 'logout@home.test');
    const app = await phoneApp(h);
    const { b, copy } = await signedInWithCopy(user);
    expect(await canMintCode(copy, app)).toBe(true);
    const csrf = hidden(await (await b.fetch('/')).text(), 'csrf_token');
    expect((await b.post('/logout', { csrf_token: csrf })).status).toBe(303);
    expect((await copy.fetch('/')).status).toBe(303);
    expect(await canMintCode(copy, app)).toBe(false);
  });

  test('admin revoke-all tokens of a user is a force logout: browser sessions end too', async () => {
    const user = await adminUser(h, 'revokeall@home.test');
    const app = await phoneApp(h);
    const { copy } = await signedInWithCopy(user);
    const res = await h.admin('DELETE', `/admin/users/${user.id}/tokens`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sessions_ended: 1 });
    expect((await copy.fetch('/')).status).toBe(303);
    expect(await canMintCode(copy, app)).toBe(false);
  });

  test('admin sessions API: list, end one, end all (force logout)', async () => {
    const user = await adminUser(h, 'sessions@home.test');
    const first = await signedInWithCopy(user);
    const second = await signedInWithCopy(user);
    const list = await h.admin('GET', `/admin/users/${user.id}/sessions`);
    expect(list.status).toBe(200);
    const sessions = (
      list.body as { sessions: Array<{ id: string; created_at: string; expires_at: string }> }
    ).sessions;
    expect(sessions).toHaveLength(2);
    // The admin view never shows the cookie value.
    expect(JSON.stringify(list.body)).not.toContain([...first.b.cookies.values()].join(''));
    expect((await h.admin('DELETE', `/admin/users/${user.id}/sessions/${sessions[0]!.id}`)).status).toBe(204);
    expect((await h.admin('DELETE', `/admin/users/${user.id}/sessions/${sessions[0]!.id}`)).status).toBe(404);
    expect((await first.copy.fetch('/')).status).toBe(303);
    expect((await second.copy.fetch('/')).status).toBe(200);
    const all = await h.admin('DELETE', `/admin/users/${user.id}/sessions`);
    expect(all).toEqual({ status: 200, body: { ended: 1 } });
    expect((await second.copy.fetch('/')).status).toBe(303);
    const audit = (await h.admin('GET', `/admin/audit?action=user.force_logout`)).body as unknown[];
    expect(audit.length).toBeGreaterThanOrEqual(2);
  });

  test('disabling a user ends their sessions for good: enabling again does not revive the cookie', async () => {
    const user = await adminUser(h, 'disabled@home.test');
    const { copy } = await signedInWithCopy(user);
    expect((await h.admin('PATCH', `/admin/users/${user.id}/disable`)).status).toBe(200);
    expect((await h.admin('PATCH', `/admin/users/${user.id}/enable`)).status).toBe(200);
    expect((await copy.fetch('/')).status).toBe(303);
  });

  test('a password change ends every session; the new password signs in, the old one does not', async () => {
    const user = await adminUser(h, 'password@home.test');
    const { copy } = await signedInWithCopy(user);
    const res = await h.admin('PATCH', `/admin/users/${user.id}`, { password: 'a brand new passphrase' });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('passphrase');
    expect((await copy.fetch('/')).status).toBe(303);
    expect((await login(new Browser(h.auth), user.email, user.password)).status).toBe(422);
    expect((await login(new Browser(h.auth), user.email, 'a brand new passphrase')).status).toBe(303);
    expect((await h.admin('PATCH', `/admin/users/${user.id}`, { password: 'short' })).status).toBe(400);
  });

  test('signing in again replaces the browser’s previous session', async () => {
    const user = await adminUser(h, 'again@home.test');
    const { b, copy } = await signedInWithCopy(user);
    expect((await login(b, user.email, user.password)).status).toBe(303);
    expect((await copy.fetch('/')).status).toBe(303);
    expect((await b.fetch('/')).status).toBe(200);
  });

  test('sessions survive a restart; ended ones stay ended', async () => {
    const user = await adminUser(h, 'restart@home.test');
    const kept = await signedInWithCopy(user);
    const ended = await signedInWithCopy(user);
    const sessions = (
      (await h.admin('GET', `/admin/users/${user.id}/sessions`)).body as { sessions: Array<{ id: string }> }
    ).sessions;
    await h.admin('DELETE', `/admin/users/${user.id}/sessions/${sessions[1]!.id}`);
    const h2 = await h.restart();
    h = Object.assign(h2, { auth: h2.listenerUrl('auth') });
    const at = (b: Browser) => {
      const c = new Browser(h.auth);
      for (const [k, v] of b.cookies) c.cookies.set(k, v);
      return c.fetch('/');
    };
    expect((await at(kept.copy)).status).toBe(200);
    expect((await at(ended.copy)).status).toBe(303);
    site = await siteResourceUri(h);
  });
});
