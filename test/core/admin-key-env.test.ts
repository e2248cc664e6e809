import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady } from '../helpers/built.ts';
import { type HubProcess, startHubProcess } from '../helpers/hub-process.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const children: HubProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill();
});

async function startProcess(dataDir: string, envKey: string): Promise<HubProcess> {
  const p = await startHubProcess(dataDir, { HEARTH_ADMIN_KEY: envKey });
  children.push(p);
  return p;
}

const verify = async (adminUrl: string, key: string) =>
  (
    await fetch(`${adminUrl}/admin/auth/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    })
  ).status;

describe('HEARTH_ADMIN_KEY and a rotated admin key across a real restart', () => {
  it('a key rotated away never comes back from HEARTH_ADMIN_KEY: the rotated key stays, with a notice (restart undid the rotation)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-key-env-'));
    const envKey = 'env-admin-key-set-by-automation';
    const first = await startProcess(dataDir, envKey);
    expect(await verify(first.adminUrl, envKey)).toBe(200);
    const rotated = await fetch(`${first.adminUrl}/admin/admin-key/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${envKey}` },
    });
    const { key } = (await rotated.json()) as { key: string };
    expect(await verify(first.adminUrl, envKey)).toBe(401);
    await first.stop();

    // Same environment file, real restart.
    const second = await startProcess(dataDir, envKey);
    expect(await verify(second.adminUrl, envKey)).toBe(401);
    expect(await verify(second.adminUrl, key)).toBe(200);
    expect(second.output()).toContain('HEARTH_ADMIN_KEY is ignored');
    expect(second.output()).not.toContain(envKey);
    const status = await fetch(`${second.adminUrl}/admin/hub`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await status.json()) as { notices: Array<{ id: string }> }).notices.map((n) => n.id)).toContain(
      'admin_key_env_ignored',
    );
    await second.stop();

    // A new key in the environment is the operator's decision: it replaces the current one.
    const fresh = 'a-brand-new-env-admin-key-0001';
    const third = await startProcess(dataDir, fresh);
    expect(await verify(third.adminUrl, fresh)).toBe(200);
    expect(await verify(third.adminUrl, key)).toBe(401);
    expect(third.output()).not.toContain('HEARTH_ADMIN_KEY is ignored');
    await third.stop();

    // ...and neither replaced key can be brought back by the environment.
    const back = await startProcess(dataDir, envKey);
    expect(await verify(back.adminUrl, envKey)).toBe(401);
    expect(await verify(back.adminUrl, fresh)).toBe(200);
    await back.stop();
    // Four real starts and stops.
  }, 120_000);
});
