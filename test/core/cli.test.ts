import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';
import { startTestHub } from '../helpers/hub.ts';
import { kvPlugin } from './fixtures/kv-plugin.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const root = path.resolve(import.meta.dirname, '../..');
/** Each test spawns several CLI processes (a second or more each on a loaded machine); the bound only catches a hang. */
const SPAWNS = { timeout: 120_000 };

/** The real CLI from this run's build (what `npm start` runs); the sources under tsx cost 2.5 s of CPU per child. */
async function hearth(
  args: string[],
  dataDir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = await built('core/cli/main.ts');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], {
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

describe('hearth backup / restore', SPAWNS, () => {
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
    expect(r.stderr).toContain('Usage: hearth');
  });
});

describe('hearth argument errors are found before anything starts', SPAWNS, () => {
  /** A data dir path that does not exist yet: a started hub would create it. */
  const fresh = () => path.join(mkdtempSync(path.join(tmpdir(), 'hearth-cli-')), 'data');

  it('`hearth backup` without a file prints its usage and exits 2 without starting a hub', async () => {
    const dir = fresh();
    const r = await hearth(['backup'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: hearth backup <file.tar.gz>');
    expect(r.stdout).toBe('');
    // No temporary hub: no data dir, no admin key, no site.
    expect(existsSync(dir)).toBe(false);
  });

  it('`hearth backup FILE` with no hub and no data directory fails instead of creating one', async () => {
    const dir = fresh();
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'hearth-bk-')), 'b.tar.gz');
    const r = await hearth(['backup', out], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no data directory at ${dir}`);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  it('unknown options, extra words and unreadable files are usage errors (exit 2, nothing created)', async () => {
    const dir = fresh();
    const cases = [
      ['backup', '--frobnicate', 'x.tar.gz'],
      ['backup', 'a.tar.gz', 'b.tar.gz'],
      ['restore', path.join(dir, 'missing.tar.gz')],
      ['site', 'create'],
      ['site', 'create', 'Kitchen', '--json=yes'],
      ['admin-key', 'rotate', 'now'],
      ['mqtt', 'credentials', 'add', 'porch'],
    ];
    const results = await Promise.all(cases.map((args) => hearth(args, dir)));
    results.forEach((r, i) => {
      expect({ args: cases[i], code: r.code }).toEqual({ args: cases[i], code: 2 });
      expect(r.stderr).toMatch(/usage: hearth /);
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('`--config=PATH` is an option wherever it stands: `site create --config=PATH Kitchen` makes "Kitchen"', async () => {
    const dir = fresh();
    const cfgDir = mkdtempSync(path.join(tmpdir(), 'hearth-cfg-'));
    const file = path.join(cfgDir, 'hearth.json');
    writeFileSync(file, JSON.stringify({ plugins: { lighting: { createHomeSite: false } } }));
    const made = await hearth(['site', 'create', `--config=${file}`, 'Kitchen', '--json'], dir);
    expect(made.code).toBe(0);
    const listed = await hearth(['site', 'list', '--config', file, '--json'], dir);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((s) => s.name)).toEqual(['Kitchen']);
  });

  it('every command has --help, and `hearth --version` prints the version', async () => {
    const dir = fresh();
    const help = await hearth(['site', 'create', '--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: hearth site create <name> [--json]');
    expect(help.stdout).toContain('--json');
    const backupHelp = await hearth(['backup', '--help'], dir);
    expect(backupHelp.code).toBe(0);
    expect(backupHelp.stdout).toContain('Usage: hearth backup <file.tar.gz>');
    const version = await hearth(['--version'], dir);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe('hearth 0.1.0');
    const none = await hearth([], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: hearth');
    expect(existsSync(dir)).toBe(false);
  });
});
