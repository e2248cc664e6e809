import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady } from '../helpers/built.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { spawnHub } from '../helpers/hub-process.ts';
import { type BreakableDisk, breakableDisk } from './fixtures/full-disk.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

let disk: BreakableDisk;
let hub: TestHub | null = null;

beforeEach(async () => {
  disk = await breakableDisk(8192);
});
afterEach(async () => {
  await disk.heal().catch(() => {});
  await hub?.stop({ keepData: true }).catch(() => {});
  hub = null;
  await disk.cleanup();
});

const client = (name: string) => ({
  client_name: name,
  redirect_uris: [],
  grant_types: ['client_credentials'],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'lights:read',
  agent: false,
  agent_description: '',
});

const names = (body: unknown) =>
  (body as Array<{ name?: string; client_name?: string }>).map((x) => x.name ?? x.client_name);

/** The translation admin API (DeepL's shape: the admin key as a DeepL-Auth-Key on the main listener). */
const deeplAdmin = (h: TestHub) => (method: string, p: string, body?: unknown) =>
  fetch(new URL(p, h.url), {
    method,
    headers: { authorization: `DeepL-Auth-Key ${h.adminKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));

async function ready(h: TestHub) {
  const res = await fetch(new URL('/ready', h.url));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a full data disk', () => {
  it('site, OAuth client and admin key writes that fail answer 503 and leave nothing, before or after the next good write and a restart', async () => {
    hub = await startTestHub({ plugins: ['lighting', 'auth'], dataDir: disk.dir });
    const h = hub;
    const sitesBefore = names((await h.admin('GET', '/admin/sites')).body);
    await disk.breakWrites();

    const refused = await h.admin('POST', '/admin/sites', { name: 'Garage' });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: 'storage_unavailable' });
    expect(names((await h.admin('GET', '/admin/sites')).body)).toEqual(sitesBefore);
    expect((await h.admin('POST', '/admin/clients', client('Never shown'))).status).toBeGreaterThanOrEqual(
      500,
    );
    expect(names((await h.admin('GET', '/admin/clients')).body)).not.toContain('Never shown');
    expect((await h.admin('POST', '/admin/admin-key/rotate')).status).toBe(503);
    const direct = await fetch(new URL('/admin/admin-key/rotate', h.adminUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${h.adminKey}` },
    });
    expect(direct.headers.get('retry-after')).toBe('60');
    // The old admin key still works: the rotation was undone, not half-applied.
    expect((await h.admin('GET', '/admin/hub')).status).toBe(200);

    const r = await ready(h);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'degraded', storage: { status: 'failing', code: disk.mode } });
    if (disk.mode === 'ENOSPC') expect((r.body.storage as { reason: string }).reason).toMatch(/disk is full/);
    expect((await h.admin('GET', '/admin/hub')).body).toMatchObject({ storage: { status: 'failing' } });
    expect(h.logs.filter((l) => l.notice === 'storage')).toHaveLength(1);

    await disk.heal();
    expect((await h.admin('POST', '/admin/sites', { name: 'Shed' })).status).toBe(201);
    // Health turns back once every store that failed has written again; the other data files retry on their
    // own schedule, so on a busy machine that can be a moment after this one write.
    await expect
      .poll(async () => (await ready(h)).body)
      .toMatchObject({ status: 'ready', storage: { status: 'ok' } });
    expect((await h.admin('GET', '/admin/hub')).body).toMatchObject({ storage: { status: 'ok' } });
    expect((await h.admin('POST', '/admin/clients', client('Kept'))).status).toBe(201);

    hub = await h.restart();
    expect(names((await hub.admin('GET', '/admin/sites')).body)).toEqual([...sitesBefore, 'Shed']);
    const clients = names((await hub.admin('GET', '/admin/clients')).body);
    expect(clients).toContain('Kept');
    expect(clients).not.toContain('Never shown');
  });

  it('developer keys and MQTT credentials that fail to save answer 503 and leave nothing', async () => {
    hub = await startTestHub({ plugins: ['lighting', 'translation', 'mqtt-devices'], dataDir: disk.dir });
    const h = hub;
    const deepl = deeplAdmin(h);
    const kept = await deepl('POST', '/v2/admin/developer-keys', { label: 'kept' });
    expect(kept.status).toBe(200);
    const keptId = (kept.body as { key_id: string }).key_id;
    const site = (await h.admin('POST', '/admin/sites', { name: 'Shed' })).body as { siteid: string };
    await disk.breakWrites();

    expect((await deepl('POST', '/v2/admin/developer-keys', { label: 'never shown' })).status).toBe(503);
    expect((await deepl('PUT', '/v2/admin/developer-keys/deactivate', { key_id: keptId })).status).toBe(503);
    expect(
      (await h.admin('POST', '/admin/mqtt/credentials', { username: 'never-shown', site: site.siteid }))
        .status,
    ).toBe(503);

    const keys = (await deepl('GET', '/v2/admin/developer-keys')).body as Array<{
      label: string;
      deactivated_time: unknown;
    }>;
    expect(keys.map((k) => k.label)).toEqual(['kept']);
    expect(keys[0]?.deactivated_time).toBeNull();
    expect((await h.admin('GET', '/admin/mqtt/credentials')).body).toEqual([]);

    await disk.heal();
    hub = await h.restart();
    const again = (await deeplAdmin(hub)('GET', '/v2/admin/developer-keys')).body as Array<{ label: string }>;
    expect(again.map((k) => k.label)).toEqual(['kept']);
    expect((await hub.admin('GET', '/admin/mqtt/credentials')).body).toEqual([]);
  });

  it('SIGTERM whose final save fails exits non-zero and says so', async () => {
    // Only the shutdown flush writes the counter's state.
    const proc = await spawnHub(disk.dir, {
      HEARTH_STORE__COALESCE_MS: '60000',
      HEARTH_ADMIN_KEY: 'full-disk-test-admin-key',
    });
    const child = proc.child;
    try {
      await proc.ready;
      await disk.breakWrites();
      child.kill('SIGTERM');
      expect((await proc.exited).code).not.toBe(0);
      expect(proc.output()).toContain('final save failed');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
