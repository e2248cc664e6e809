import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyPlugin } from '../../core/plugin/discover.ts';
import { definePlugin, type PluginContext } from '../../core/plugin/types.ts';
import { SecretUnavailableError } from '../../core/secrets/cipher.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

/** A plugin that hands its context to the test, so the test uses ctx.secrets like a plugin does. */
function probe(name: string, seen: Array<PluginContext<unknown>>): AnyPlugin {
  return definePlugin<unknown, undefined>({
    name,
    version: '0.0.0',
    description: 'test probe',
    configSchema: { type: 'object' },
    start: async (ctx) => {
      seen.push(ctx);
      return { exports: undefined, stop: async () => {} };
    },
  }) as AnyPlugin;
}

const HUE_KEY = 'hue-application-key-3f9a1c7e52b04d8e';

let hubs: TestHub[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.allSettled(hubs.map((h) => h.stop()));
  hubs = [];
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-secrets-'));
  dirs.push(dir);
  return dir;
}

async function hubWithProbes(dataDir: string, config: Record<string, unknown> = {}) {
  const seen: Array<PluginContext<unknown>> = [];
  const hub = await startTestHub({
    dataDir,
    config,
    extraPlugins: [probe('alpha', seen), probe('beta', seen)],
  });
  hubs.push(hub);
  const [alpha, beta] = seen as [PluginContext<unknown>, PluginContext<unknown>];
  return { hub, alpha, beta };
}

describe('core secrets (ctx.secrets)', () => {
  it('keeps a secret encrypted on disk, under a key in a 0700 keys/ folder, and gives it back after a restart', async () => {
    const dataDir = tempDir();
    const first = await hubWithProbes(dataDir);
    await first.alpha.secrets.set('bridge/001788fffe4a', HUE_KEY);
    expect(first.alpha.secrets.get('bridge/001788fffe4a')).toBe(HUE_KEY);

    const onDisk = readFileSync(path.join(dataDir, 'secrets.json'), 'utf8');
    expect(onDisk).not.toContain(HUE_KEY);
    expect(onDisk).toContain('alpha/bridge/001788fffe4a');
    const keyFile = path.join(dataDir, 'keys', 'secrets.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(readFileSync(keyFile, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);

    await first.hub.stop({ keepData: true });
    hubs = [];
    const second = await hubWithProbes(dataDir);
    expect(second.alpha.secrets.get('bridge/001788fffe4a')).toBe(HUE_KEY);
    expect(second.alpha.secrets.names()).toEqual(['bridge/001788fffe4a']);
  });

  it('scopes names to the plugin: another plugin neither sees nor overwrites them', async () => {
    const { alpha, beta } = await hubWithProbes(tempDir());
    await alpha.secrets.set('network-key', 'alpha-network-key-value');
    await beta.secrets.set('network-key', 'beta-network-key-value');
    expect(alpha.secrets.get('network-key')).toBe('alpha-network-key-value');
    expect(beta.secrets.get('network-key')).toBe('beta-network-key-value');
    await beta.secrets.delete('network-key');
    expect(beta.secrets.names()).toEqual([]);
    expect(alpha.secrets.names()).toEqual(['network-key']);
  });

  it('redacts stored and sealed values from every log line', async () => {
    const { hub, alpha } = await hubWithProbes(tempDir());
    await alpha.secrets.set('app-key', HUE_KEY);
    const refresh = 'upstream-refresh-token-8d1e5b7a90';
    alpha.secrets.seal(refresh, 'grant-1');
    alpha.log.warn({ detail: `bridge said ${HUE_KEY}` }, `refresh ${refresh} failed`);
    const line = hub.logs.find((l) => l.msg?.toString().startsWith('refresh '));
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).not.toContain(HUE_KEY);
    expect(JSON.stringify(line)).not.toContain(refresh);
    expect(JSON.stringify(line)).toContain('[REDACTED]');
  });

  it('seals values for a plugin record: the same context opens them, another context, plugin or tampering does not', async () => {
    const { alpha, beta } = await hubWithProbes(tempDir());
    const sealed = alpha.secrets.seal('refresh-token-value-1', 'grant-42');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('refresh-token-value-1');
    expect(alpha.secrets.open(sealed, 'grant-42')).toBe('refresh-token-value-1');
    expect(() => alpha.secrets.open(sealed, 'grant-43')).toThrow(SecretUnavailableError);
    expect(() => beta.secrets.open(sealed, 'grant-42')).toThrow(SecretUnavailableError);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    parts[2] = body.toString('base64url');
    expect(() => alpha.secrets.open(parts.join('.'), 'grant-42')).toThrow(SecretUnavailableError);
    expect(() => alpha.secrets.open('not sealed', 'grant-42')).toThrow(
      /secret unavailable: not a sealed value/,
    );
  });

  it('acknowledges each set only once it is durable, sharing writes between changes made meanwhile', async () => {
    const dataDir = tempDir();
    const { alpha } = await hubWithProbes(dataDir);
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => alpha.secrets.set(`k${i}`, `value-number-${i}`)),
    );
    expect(writes).toHaveLength(20);
    const file = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as {
      entries: Record<string, string>;
    };
    expect(Object.keys(file.entries)).toHaveLength(20);
    expect(alpha.secrets.names()).toHaveLength(20);
  });

  it('leaves the key out of backups, and a restore keeps the key and reads the restored secrets', async () => {
    const dataDir = tempDir();
    const { hub, alpha } = await hubWithProbes(dataDir);
    await alpha.secrets.set('app-key', HUE_KEY);
    const res = await fetch(`${hub.adminUrl}/admin/backup`, {
      headers: { authorization: `Bearer ${hub.adminKey}` },
    });
    expect(res.status).toBe(200);
    const archive = Buffer.from(await res.arrayBuffer());
    const tar = await import('tar');
    const listed: string[] = [];
    const unpackDir = tempDir();
    const archiveFile = path.join(unpackDir, 'backup.tar.gz');
    writeFileSync(archiveFile, archive);
    await tar.t({ file: archiveFile, onReadEntry: (e) => listed.push(e.path) });
    expect(listed.some((p) => p.includes('secrets.json'))).toBe(true);
    expect(listed.some((p) => p.includes('keys/') || p.endsWith('secrets.key'))).toBe(false);

    await alpha.secrets.set('app-key', 'changed-after-the-backup');
    const restored = await fetch(`${hub.adminUrl}/admin/restore`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminKey}`, 'content-type': 'application/gzip' },
      body: archive,
    });
    expect(restored.status).toBe(200);
    expect(readFileSync(path.join(dataDir, 'keys', 'secrets.key'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    const status = await hub.admin('GET', '/admin/status');
    expect(JSON.stringify(status.body)).not.toContain('secrets_unreadable');
    // The plugins were restarted on the restored data; a fresh context reads the backup's value.
    await hub.stop({ keepData: true });
    hubs = [];
    const again = await hubWithProbes(dataDir);
    expect(again.alpha.secrets.get('app-key')).toBe(HUE_KEY);
  });

  it('with a key that does not match, says so once and keeps the stored secrets for when the right key is back', async () => {
    const dataDir = tempDir();
    const first = await hubWithProbes(dataDir);
    await first.alpha.secrets.set('app-key', HUE_KEY);
    await first.hub.stop({ keepData: true });
    hubs = [];
    const keyFile = path.join(dataDir, 'keys', 'secrets.key');
    const rightKey = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, `${'ab'.repeat(32)}\n`);

    const wrong = await hubWithProbes(dataDir);
    expect(wrong.alpha.secrets.get('app-key')).toBeUndefined();
    const notices = wrong.hub.logs.filter((l) => l.notice === 'secrets_unreadable');
    expect(notices).toHaveLength(1);
    expect(JSON.stringify(notices[0])).toContain('alpha/app-key');
    expect(JSON.stringify(wrong.hub.logs)).not.toContain(HUE_KEY);
    await wrong.hub.stop({ keepData: true });
    hubs = [];

    writeFileSync(keyFile, rightKey);
    const right = await hubWithProbes(dataDir);
    expect(right.alpha.secrets.get('app-key')).toBe(HUE_KEY);
  });

  it('uses a configured key file and refuses to start, creating nothing, when it is missing', async () => {
    const dataDir = tempDir();
    const keyDir = tempDir();
    const keyFile = path.join(keyDir, 'hearth.key');
    await expect(startTestHub({ dataDir, config: { secrets: { keyFile } } })).rejects.toThrow(/ENOENT/);
    expect(await readdir(keyDir)).toEqual([]);

    writeFileSync(keyFile, `${'0f'.repeat(32)}\n`, { mode: 0o600 });
    const { alpha } = await hubWithProbes(dataDir, { secrets: { keyFile } });
    await alpha.secrets.set('app-key', HUE_KEY);
    await expect(readdir(path.join(dataDir, 'keys'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a key file that is not 64 hex digits, without saying what it holds', async () => {
    const dataDir = tempDir();
    await mkdir(path.join(dataDir, 'keys'), { recursive: true });
    writeFileSync(path.join(dataDir, 'keys', 'secrets.key'), 'hunter2-not-a-key\n');
    const err = await startTestHub({ dataDir }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/is not 64 hex digits/);
    expect(String(err)).not.toContain('hunter2');
  });
});
