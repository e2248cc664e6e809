import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { markSwapReady, unpackBackup } from '../../core/admin/backup.ts';
import { BUILD_TIMEOUT, buildReady } from '../helpers/built.ts';
import { startTestHub } from '../helpers/hub.ts';
import { type HubProcess, startHubProcess } from '../helpers/hub-process.ts';
import { kvPlugin } from './fixtures/kv-plugin.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const staging = (dir: string) => readdirSync(dir).filter((n) => /^\.(restore|backup)-/.test(n));

async function backupOf(t: Awaited<ReturnType<typeof startTestHub>>): Promise<Buffer> {
  const res = await fetch(`${t.adminUrl}/admin/backup`, {
    headers: { authorization: `Bearer ${t.adminKey}` },
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('a restore or backup killed midway (kill -9) is cleaned up at the next start', () => {
  it('removes the staging folders of a restore that had not begun swapping, leaving the data as it was', async () => {
    const t = await startTestHub({ extraPlugins: [kvPlugin] });
    await t.admin('PUT', '/admin/kv', { value: 'live' });
    await t.stop({ keepData: true });
    // What kill -9 during the archive's unpacking and during a backup's copy leaves behind.
    mkdirSync(path.join(t.dataDir, '.restore-k1LLed'));
    writeFileSync(path.join(t.dataDir, '.restore-k1LLed', 'kv.data.json'), '{"value":"ha');
    mkdirSync(path.join(t.dataDir, '.backup-k1LLed'));
    writeFileSync(path.join(t.dataDir, '.backup-k1LLed', 'kv.data.json'), '{"value":"live"}');

    const again = await startTestHub({ extraPlugins: [kvPlugin], dataDir: t.dataDir, adminKey: t.adminKey });
    try {
      expect(staging(t.dataDir)).toEqual([]);
      expect((await again.admin('GET', '/admin/kv')).body).toEqual({ value: 'live' });
    } finally {
      await again.stop();
    }
  });

  it('finishes a restore that was killed while swapping files in: the data is the backup, never a mix', async () => {
    const t = await startTestHub({ extraPlugins: [kvPlugin] });
    await t.admin('PUT', '/admin/kv', { value: 'in the backup' });
    const archive = await backupOf(t);
    await t.admin('PUT', '/admin/kv', { value: 'after the backup' });
    await t.stop({ keepData: true });
    // A data file the backup does not have: the restore removes it.
    writeFileSync(path.join(t.dataDir, 'kv.extra.json'), '{}');

    // The restore got as far as moving one file in (the admin key's) when the process died.
    const staged = await unpackBackup(t.dataDir, Readable.from(archive));
    await markSwapReady(staged);
    const first = staged.files.find((f) => f !== 'kv.data.json') as string;
    renameSync(path.join(staged.dir, first), path.join(t.dataDir, first));

    const again = await startTestHub({ extraPlugins: [kvPlugin], dataDir: t.dataDir, adminKey: t.adminKey });
    try {
      expect(staging(t.dataDir)).toEqual([]);
      expect((await again.admin('GET', '/admin/kv')).body).toEqual({ value: 'in the backup' });
      expect(existsSync(path.join(t.dataDir, 'kv.extra.json'))).toBe(false);
    } finally {
      await again.stop();
    }
  });
});

describe('a real hub killed with SIGKILL in the middle of a restore', () => {
  it('starts again with no staging folder left and every data file readable, wherever the kill fell', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-restore-kill-'));
    const key = 'restore-kill-admin-key-0123456789';
    const auth = { authorization: `Bearer ${key}` };
    let hub: HubProcess = await startHubProcess(dataDir, { HEARTH_ADMIN_KEY: key });
    try {
      const archive = Buffer.from(
        await (await fetch(`${hub.adminUrl}/admin/backup`, { headers: auth })).arrayBuffer(),
      );
      // Kill points from before the request arrives to after the swap.
      for (const delayMs of [0, 5, 20, 60, 150]) {
        const restoring = fetch(`${hub.adminUrl}/admin/restore`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/gzip' },
          body: new Uint8Array(archive),
        }).catch(() => null);
        await new Promise((r) => setTimeout(r, delayMs));
        await hub.kill();
        await restoring;
        hub = await startHubProcess(dataDir, { HEARTH_ADMIN_KEY: key });
        expect(staging(dataDir)).toEqual([]);
        for (const f of readdirSync(dataDir).filter((n) => n.endsWith('.json')))
          expect(() => JSON.parse(readFileSync(path.join(dataDir, f), 'utf8'))).not.toThrow();
        const verify = await fetch(`${hub.adminUrl}/admin/auth/verify`, { method: 'POST', headers: auth });
        expect(verify.status).toBe(200);
      }
    } finally {
      await hub.kill();
    }
  }, 120_000);
});
