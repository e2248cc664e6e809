import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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

const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

let h: AuthHub;
let site: string;

beforeAll(async () => {
  h = await startAuthHub();
  site = await siteResourceUri(h);
});
let leftover: string | undefined;
afterAll(async () => {
  await h?.stop();
  if (leftover) rmSync(leftover, { recursive: true, force: true });
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
async function ccToken(id: string, secret: string): Promise<string> {
  const res = await fetch(`${h.auth}/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic(id, secret) },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}
async function introspect(id: string, secret: string, token: string): Promise<boolean> {
  const res = await fetch(`${h.auth}/oauth/introspect`, {
    method: 'POST',
    headers: { authorization: basic(id, secret) },
    body: new URLSearchParams({ token }),
  });
  return ((await res.json()) as { active: boolean }).active;
}

/** Every admin route that takes an id, with that id set to `name`. */
function routesWith(name: string, user: string): Array<[string, string, unknown?]> {
  const n = encodeURIComponent(name);
  return [
    ['GET', `/admin/clients/${n}`],
    ['PATCH', `/admin/clients/${n}`, { client_name: 'x' }],
    ['DELETE', `/admin/clients/${n}`],
    ['DELETE', `/admin/clients/${n}?force=true`],
    ['POST', `/admin/clients/${n}/rotate-secret`],
    ['PATCH', `/admin/clients/${n}/suspend`],
    ['PATCH', `/admin/clients/${n}/reactivate`],
    ['PATCH', `/admin/clients/${n}/revoke`],
    ['GET', `/admin/users/${n}`],
    ['PATCH', `/admin/users/${n}`, { name: 'x' }],
    ['DELETE', `/admin/users/${n}`],
    ['DELETE', `/admin/users/${n}?force=true`],
    ['PATCH', `/admin/users/${n}/disable`],
    ['PATCH', `/admin/users/${n}/enable`],
    ['GET', `/admin/users/${n}/grants`],
    ['GET', `/admin/users/${n}/tokens`],
    ['DELETE', `/admin/users/${n}/tokens`],
    ['GET', `/admin/users/${n}/sessions`],
    ['DELETE', `/admin/users/${n}/sessions`],
    ['DELETE', `/admin/users/${user}/sessions/${n}`],
    ['DELETE', `/admin/grants/consent/${n}`],
    ['GET', `/admin/issuances/${n}`],
    ['DELETE', `/admin/issuances/${n}`],
    ['DELETE', `/admin/tokens/${n}`],
    ['GET', `/admin/resources/${n}`],
    ['PATCH', `/admin/resources/${n}`, { display_name: 'x' }],
    ['DELETE', `/admin/resources/${n}`],
    ['GET', `/admin/resources/${n}/policy/exchange/allowed-clients`],
    ['POST', `/admin/resources/${n}/policy/exchange/allowed-clients`, { client_id: 'x' }],
    ['POST', `/admin/resources/translation/policy/exchange/allowed-clients`, { client_id: name }],
    ['DELETE', `/admin/resources/translation/policy/exchange/allowed-clients/${n}`],
    ['GET', `/admin/resources/${n}/policy/runtime/client-ids`],
    ['POST', `/admin/resources/translation/policy/runtime/client-ids`, { client_id: name }],
    ['DELETE', `/admin/resources/translation/policy/runtime/client-ids/${n}`],
    ['GET', `/admin/resources/${n}/policy/connect/allowed-return-urls`],
    ['POST', `/admin/resources/${n}/policy/connect/allowed-return-urls`, { url: 'https://a.example/' }],
    ['DELETE', `/admin/resources/${n}/policy/connect/allowed-return-urls?url=https%3A%2F%2Fa.example%2F`],
  ];
}

describe('ids that are names of Object.prototype', () => {
  test('DELETE /admin/clients/constructor and every other id route answer 404 and revoke nothing', async () => {
    const a = await adminClient(h, { scope: 'lights:read' });
    const b = await adminClient(h, { scope: 'lights:read' });
    const ta = await ccToken(a.client_id, a.client_secret!);
    const tb = await ccToken(b.client_id, b.client_secret!);
    // A user with a consent grant, live delegated tokens and a browser session.
    const user = await adminUser(h, 'proto@home.test');
    const app = await phoneApp(h);
    const browser = new Browser(h.auth);
    const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
    const cb = await authorizeInBrowser(browser, flow.url, user);
    const code = await fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: app.id,
        code: cb.searchParams.get('code')!,
        redirect_uri: 'http://127.0.0.1:49152/callback',
        code_verifier: flow.verifier,
      }),
    });
    expect(code.status).toBe(200);
    const before = {
      a: await liveTokens(h, a.client_id),
      b: await liveTokens(h, b.client_id),
      app: await liveTokens(h, app.id),
    };
    expect(before.app).toHaveLength(1);

    for (const name of PROTO_NAMES) {
      for (const [method, url, body] of routesWith(name, user.id)) {
        const res = await h.admin(method, url, body);
        expect(res.status, `${method} ${url}`).toBe(404);
      }
    }
    // Nothing was revoked or changed.
    expect(await liveTokens(h, a.client_id)).toEqual(before.a);
    expect(await liveTokens(h, b.client_id)).toEqual(before.b);
    expect(await liveTokens(h, app.id)).toEqual(before.app);
    expect(await introspect(a.client_id, a.client_secret!, ta)).toBe(true);
    expect(await introspect(b.client_id, b.client_secret!, tb)).toBe(true);
    expect((await browser.fetch('/')).status).toBe(200);
    const translation = (await h.admin('GET', '/admin/resources?slug=translation')).body as Array<{
      policy: { exchange: { allowed_client_ids: string[] }; runtime: { client_ids: string[] } };
    }>;
    expect(translation[0]!.policy).toMatchObject({
      exchange: { allowed_client_ids: [] },
      runtime: { client_ids: [] },
    });
    // Discovery and the resource listings still answer.
    expect((await fetch(`${h.auth}/.well-known/oauth-authorization-server`)).status).toBe(200);
    expect((await fetch(`${h.auth}/.well-known/oauth-protected-resource`)).status).toBe(200);
    for (const name of PROTO_NAMES) {
      const prm = await fetch(`${h.auth}/.well-known/oauth-protected-resource/${encodeURIComponent(name)}`);
      expect(prm.status, name).toBe(404);
    }
    expect((await h.admin('GET', '/admin/resources')).status).toBe(200);
  });

  test('clients may be named like Object.prototype members, and survive a restart', async () => {
    for (const name of PROTO_NAMES) {
      const c = await adminClient(h, { client_id: name, scope: 'lights:read' });
      expect(c.client_id).toBe(name);
      expect(await introspect(name, c.client_secret!, await ccToken(name, c.client_secret!))).toBe(true);
      const got = await h.admin('GET', `/admin/clients/${encodeURIComponent(name)}`);
      expect(got.status).toBe(200);
      expect((got.body as { id: string }).id).toBe(name);
      const again = await h.admin('POST', '/admin/clients', {
        client_id: name,
        client_name: 'dup',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: '',
        agent: false,
        agent_description: '',
      });
      expect(again.status).toBe(409);
    }
    const h2 = await h.restart();
    h = Object.assign(h2, { auth: h2.listenerUrl('auth') });
    site = await siteResourceUri(h);
    const ids = ((await h.admin('GET', '/admin/clients')).body as Array<{ id: string }>).map((c) => c.id);
    for (const name of PROTO_NAMES) expect(ids).toContain(name);
    // Other clients keep working after a proto-named one is deleted.
    const other = await adminClient(h, { scope: 'lights:read' });
    const token = await ccToken(other.client_id, other.client_secret!);
    expect((await h.admin('DELETE', '/admin/clients/constructor?force=true')).status).toBe(204);
    expect(await introspect(other.client_id, other.client_secret!, token)).toBe(true);
    expect((await h.admin('GET', '/admin/clients/constructor')).status).toBe(404);
  });

  test('a data file already holding a record saved under an inherited name loads: discovery, metadata and lists answer', async () => {
    const dataDir = h.dataDir;
    const adminKey = h.adminKey;
    await h.stop({ keepData: true });
    const file = path.join(dataDir, 'auth.data.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
    // What PATCH /admin/resources/hasOwnProperty used to save, and a record under a key that is not its id.
    data.resources!.undefined = { updated_at: '2026-11-20T10:00:00.000Z' };
    Object.assign(data.clients!, { toString: { updated_at: '2026-11-20T10:00:00.000Z' } });
    writeFileSync(file, JSON.stringify(data, null, 2));
    h = await startAuthHub({ dataDir, adminKey });
    leftover = dataDir;
    expect((await fetch(`${h.auth}/.well-known/oauth-authorization-server`)).status).toBe(200);
    expect((await fetch(`${h.auth}/.well-known/oauth-protected-resource`)).status).toBe(200);
    expect((await fetch(`${h.auth}/.well-known/oauth-protected-resource/translation`)).status).toBe(200);
    const list = await h.admin('GET', '/admin/resources');
    expect(list.status).toBe(200);
    expect((list.body as Array<{ slug: string }>).map((r) => r.slug)).toContain('translation');
    expect((await h.admin('GET', '/admin/clients')).status).toBe(200);
    expect(h.logs.some((l) => String(l.msg).includes('malformed auth record set aside'))).toBe(true);
    // Nothing is lost: the set-aside records are kept in the file.
    const after = JSON.parse(readFileSync(file, 'utf8')) as { quarantine?: Array<{ key: string }> };
    expect(after.quarantine?.map((q) => q.key).sort()).toEqual(['toString', 'undefined']);
  });
});
