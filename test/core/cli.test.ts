import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { describe, expect, it } from 'vitest';
import { startTestHub } from '../helpers/hub.ts';
import { kvPlugin } from './fixtures/kv-plugin.ts';

const root = path.resolve(import.meta.dirname, '../..');

function hearth(
  args: string[],
  dataDir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/hearth.mjs', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HEARTH_DATA_DIR: dataDir, HEARTH_LOG_LEVEL: 'error' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('hearth backup / restore', () => {
  it('backs up a running hub, restores through it, and restores with no hub running', async () => {
    const t = await startTestHub({ extraPlugins: [kvPlugin] });
    const out = mkdtempSync(path.join(tmpdir(), 'hearth-bk-'));
    const archive = path.join(out, 'backup.tar.gz');
    await t.admin('PUT', '/admin/kv', { value: 'one' });

    const backup = await hearth(['backup', archive], t.dataDir);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const listed: string[] = [];
    await tar.t({ file: archive, onReadEntry: (e) => void listed.push(e.path) });
    expect(listed).toEqual(
      expect.arrayContaining(['./hearth-backup.json', './kv.data.json', './core.admin.json']),
    );
    expect(listed.some((p) => /hub\.lock|control\.json|\.bak$/.test(p))).toBe(false);

    await t.admin('PUT', '/admin/kv', { value: 'two' });
    const restore = await hearth(['restore', archive], t.dataDir);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/restored \d+ files/);
    // The running hub reloaded its plugins on the restored data.
    expect((await t.admin('GET', '/admin/kv')).body).toEqual({ value: 'one' });

    await t.admin('PUT', '/admin/kv', { value: 'three' });
    await t.stop({ keepData: true });
    expect(existsSync(path.join(t.dataDir, 'run', 'control.json'))).toBe(false);
    const offline = await hearth(['restore', archive], t.dataDir);
    expect(offline.code).toBe(0);
    const again = await startTestHub({ extraPlugins: [kvPlugin], dataDir: t.dataDir, adminKey: t.adminKey });
    expect((await again.admin('GET', '/admin/kv')).body).toEqual({ value: 'one' });

    const junk = path.join(out, 'junk.tar.gz');
    writeFileSync(junk, 'this is not an archive');
    const bad = await hearth(['restore', junk], again.dataDir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/hub answered 400: .*invalid_backup/);
    expect((await again.admin('GET', '/admin/kv')).body).toEqual({ value: 'one' });
    await again.stop();
  });

  it('rotates the admin key through the running hub', async () => {
    const t = await startTestHub({});
    const r = await hearth(['admin-key', 'rotate'], t.dataDir);
    expect(r.code).toBe(0);
    const key = /New admin key \(shown once\): (\S+)/.exec(r.stdout)?.[1];
    expect(key).toBeDefined();
    expect((await t.admin('POST', '/admin/auth/verify')).status).toBe(401);
    const res = await fetch(`${t.adminUrl}/admin/auth/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    await t.stop();
  });

  it('explains unknown commands', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-cli-'));
    const r = await hearth(['frobnicate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command: frobnicate');
    expect(r.stdout).toContain('Usage: hearth');
  });
});
