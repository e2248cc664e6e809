/**
 * What `npm start` runs: the esbuild bundle with code splitting (scripts/build.mjs). It must start every
 * plugin, find the files its modules locate through `import.meta.url` (config defaults, web UI, console
 * pages) and use the config validators compiled by the build.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnBuiltHub } from '../../scripts/lib/spawn-hub.ts';
import { BUILD_TIMEOUT, buildReady, builtDist } from '../helpers/built.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bundle-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the start bundle', () => {
  test('starts every plugin from the bundle and serves the files its modules find by their own URL', async () => {
    // This run's `node scripts/build.mjs --out <dir>` (built once for every test that starts a child).
    const out = await builtDist();
    expect(existsSync(path.join(out, 'lib/config-validators.js'))).toBe(true);
    expect(readdirSync(path.join(out, 'lib/chunks')).length).toBeGreaterThan(0);

    const adminKey = 'bundle-test-admin-key-0123456789';
    const hub = await spawnBuiltHub({
      dist: out,
      dataDir,
      adminKey,
      stderr: 'pipe',
      until: /web UI of site "Home": (http:\S+)/,
    });
    const output = hub.output();
    try {
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
      await hub.stop();
    }
  });
});
