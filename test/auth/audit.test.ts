/** The audit trail: bounds and filters of GET /admin/audit, and an event for every admin write. */
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
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

async function ccToken(id: string, secret: string): Promise<string> {
  const res = await fetch(`${h.auth}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('audit trail', () => {
  /** Runs one admin write and checks that exactly one event with the origin's action name was added. */
  async function audited(action: string, write: () => Promise<{ status: number }>) {
    const count = async () =>
      ((await h.admin('GET', `/admin/audit?action=${action}&limit=1000`)).body as unknown[]).length;
    const before = await count();
    const res = await write();
    expect(res.status, action).toBeLessThan(300);
    expect(await count(), action).toBe(before + 1);
  }

  test('audit: every admin write is recorded; bounds enforced', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    await h.admin('POST', `/admin/clients/${c.client_id}/rotate-secret`);
    const events = (await h.admin('GET', `/admin/audit?client_id=${c.client_id}`)).body as Array<{
      action: string;
      actor_id: string;
    }>;
    expect(events.map((e) => e.action)).toEqual(['client.secret_rotated', 'client.created_admin']);
    expect(events[0]?.actor_id).toBe('admin');
    // `until` bounds the window from above (Unix seconds or RFC 3339).
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    expect((await h.admin('GET', `/admin/audit?client_id=${c.client_id}&until=${hourAgo}`)).body).toEqual([]);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      ((await h.admin('GET', `/admin/audit?client_id=${c.client_id}&until=${later}`)).body as unknown[])
        .length,
    ).toBe(2);
    expect((await h.admin('GET', '/admin/audit?until=yesterday')).status).toBe(400);
    expect((await h.admin('GET', '/admin/audit?limit=1001')).status).toBe(400);
    expect((await h.admin('GET', '/admin/audit?offset=100001')).status).toBe(400);
    expect((await h.admin('GET', '/admin/audit?since=2001-01-01T00:00:00Z')).status).toBe(400);
    expect(
      ((await h.admin('GET', '/admin/audit?action=client.secret_rotated&limit=1')).body as unknown[]).length,
    ).toBe(1);
  });

  test('every admin write is audited with its action name', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const id = c.client_id;
    await audited('client.updated', () => h.admin('PATCH', `/admin/clients/${id}`, { client_name: 'n' }));
    await audited('client.secret_rotated', () => h.admin('POST', `/admin/clients/${id}/rotate-secret`));
    await audited('client.suspended', () => h.admin('PATCH', `/admin/clients/${id}/suspend`));
    await audited('client.updated', () => h.admin('PATCH', `/admin/clients/${id}/reactivate`));
    await audited('client.revoked', () => h.admin('PATCH', `/admin/clients/${id}/revoke`));
    await audited('client.deleted', () => h.admin('DELETE', `/admin/clients/${id}?force=true`));

    const u = await adminUser(h, 'erin@home.test', 'erin password 1');
    await audited('user.updated', () => h.admin('PATCH', `/admin/users/${u.id}`, { name: 'Erin' }));
    await audited('user.disabled', () => h.admin('PATCH', `/admin/users/${u.id}/disable`));
    await audited('user.updated', () => h.admin('PATCH', `/admin/users/${u.id}/enable`));

    // A consent grant and a token to revoke.
    const app = await adminClient(h, {
      redirect_uris: ['http://127.0.0.1/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const config = await client.discovery(new URL(h.auth), app.client_id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1/cb',
      resource: site,
      scope: 'lights:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const cb = await authorizeInBrowser(new Browser(h.auth), url.toString(), u);
    const t = await client.authorizationCodeGrant(config, cb, { pkceCodeVerifier: verifier });
    const grants = (await h.admin('GET', `/admin/users/${u.id}/grants`)).body as {
      consent_grants: Array<{ id: string }>;
    };
    await audited('issuance.revoked_admin', () =>
      h.admin('DELETE', `/admin/tokens/${decodeJwt(t.access_token).jti}`),
    );
    await audited('consent_grant.revoked_admin', () =>
      h.admin('DELETE', `/admin/grants/consent/${grants.consent_grants[0]!.id}`),
    );
    await audited('user.force_logout', () => h.admin('DELETE', `/admin/users/${u.id}/tokens`));
    await audited('user.deleted', () => h.admin('DELETE', `/admin/users/${u.id}?force=true`));

    const m = await adminClient(h, { scope: 'lights:read' });
    const jti = decodeJwt(await ccToken(m.client_id, m.client_secret!)).jti!;
    await audited('issuance.revoked_admin', () => h.admin('DELETE', `/admin/issuances/${jti}`));

    await audited('resource.created', () =>
      h.admin('POST', '/admin/resources', {
        slug: 'shed',
        uri: '',
        backend_kind: 'mint',
        display_name: 'Shed',
        scopes: [{ name: 'shed:open' }],
      }),
    );
    const shed = ((await h.admin('GET', '/admin/resources?slug=shed')).body as Array<{ id: string }>)[0]!;
    await audited('resource.patched', () =>
      h.admin('PATCH', `/admin/resources/${shed.id}`, { display_name: 'Garden shed' }),
    );
    const policy = '/admin/resources/shed/policy';
    const body = { client_id: m.client_id };
    await audited('resource.policy.exchange.allowed_client.added', () =>
      h.admin('POST', `${policy}/exchange/allowed-clients`, body),
    );
    await audited('resource.policy.exchange.allowed_client.removed', () =>
      h.admin('DELETE', `${policy}/exchange/allowed-clients/${m.client_id}`),
    );
    await audited('resource.policy.runtime.client.added', () =>
      h.admin('POST', `${policy}/runtime/client-ids`, body),
    );
    await audited('resource.policy.runtime.client.removed', () =>
      h.admin('DELETE', `${policy}/runtime/client-ids/${m.client_id}`),
    );
    const ret = 'https://app.example/back';
    await audited('resource.policy.connect.allowed_return_url.added', () =>
      h.admin('POST', `${policy}/connect/allowed-return-urls`, { url: ret }),
    );
    await audited('resource.policy.connect.allowed_return_url.removed', () =>
      h.admin('DELETE', `${policy}/connect/allowed-return-urls?url=${encodeURIComponent(ret)}`),
    );
    await audited('resource.deleted', () => h.admin('DELETE', `/admin/resources/${shed.id}`));

    await audited('dcr.mode_updated', () => h.admin('PATCH', '/admin/settings/dcr', { mode: 'admin_only' }));
    await audited('dcr.mode_updated', () => h.admin('PATCH', '/admin/settings/dcr', { mode: 'open' }));
    await audited('key.rotated', () => h.admin('POST', '/admin/keys/rotate'));

    const events = (await h.admin('GET', '/admin/audit?action=key.rotated')).body as Array<
      Record<string, unknown>
    >;
    expect(Object.keys(events[0]!).sort()).toEqual(
      ['action', 'actor_id', 'client_id', 'created_at', 'detail', 'id', 'ip', 'trace_id'].sort(),
    );
    expect(events[0]).toMatchObject({ actor_id: 'admin' });
  });
});
