/**
 * What `npm start` runs: the esbuild bundle with code splitting (scripts/build.mjs). It must start every
 * plugin, find the files its modules locate through `import.meta.url` (config defaults, web UI, console
 * pages) and use the config validators compiled by the build.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
// Inside the repository: the bundle loads its native addons and pino-pretty from node_modules.
mkdirSync(path.join(root, 'test/output'), { recursive: true });
const out = mkdtempSync(path.join(root, 'test/output/dist-'));
const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bundle-'));
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the start bundle', () => {
  test('starts every plugin from the bundle and serves the files its modules find by their own URL', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', '--out', out], { cwd: root, stdio: 'pipe' });
    expect(existsSync(path.join(out, 'lib/config-validators.js'))).toBe(true);
    expect(readdirSync(path.join(out, 'lib/chunks')).length).toBeGreaterThan(0);

    const adminKey = 'bundle-test-admin-key-0123456789';
    const child = spawn(process.execPath, [path.join(out, 'core', 'cli', 'main.js'), 'start'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HEARTH_DATA_DIR: dataDir,
        HEARTH_HOST: '127.0.0.1',
        HEARTH_PORT: '0',
        HEARTH_ADMIN_PORT: '0',
        HEARTH_MQTT_PORT: '0',
        HEARTH_PLUGINS__AUTH__PORT: '0',
        HEARTH_LOG_LEVEL: 'warn',
        HEARTH_ADMIN_KEY: adminKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await expect.poll(() => output, { timeout: 45_000 }).toMatch(/web UI of site "Home": (http:\S+)/);
      const main = /main\s+(http:\S+)/.exec(output)?.[1] as string;
      const admin = /admin\s+(http:\S+)/.exec(output)?.[1] as string;
      const site = /web UI of site "Home": (http:\S+)/.exec(output)?.[1] as string;
      expect((await fetch(`${main}/ready`)).status).toBe(200);
      const ui = await fetch(site);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('<html');
      const consolePage = await fetch(`${admin}/admin/ui/`, {
        headers: { authorization: `Bearer ${adminKey}` },
      });
      expect(consolePage.status).toBe(200);
      const status = await fetch(`${admin}/admin/hub`, {
        headers: { authorization: `Bearer ${adminKey}` },
      });
      expect(status.status).toBe(200);
      const plugins = JSON.stringify(await status.json());
      for (const name of ['auth', 'console', 'hue', 'lighting', 'mqtt-devices', 'translation', 'zigbee'])
        expect(plugins).toContain(name);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
