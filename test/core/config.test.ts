import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { envOverrides } from '../../core/config/env.ts';
import { readConfigSources, validateConfig } from '../../core/config/load.ts';
import { ConfigError } from '../../core/config/types.ts';
import { BUILD_TIMEOUT, built } from '../helpers/built.ts';
import { probe } from './fixtures/plugins.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The real CLI from this run's build; the sources under tsx cost 2.5 s of CPU per child. */
let main = '';
beforeAll(async () => {
  main = await built('core/cli/main.ts');
}, BUILD_TIMEOUT);

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('config', () => {
  it('applies defaults', () => {
    const c = validateConfig(readConfigSources({ env: {} }), []);
    expect(c.http.main.port).toBe(8080);
    expect(c.http.admin.port).toBe(9001);
    expect(c.mqtt.port).toBe(1883);
    expect(c.store.coalesceMs).toBe(1000);
  });

  it('takes HEARTH_* overrides: aliases and any path with __', () => {
    const env = {
      HEARTH_DATA_DIR: '/srv/hearth',
      HEARTH_PORT: '0',
      HEARTH_ADMIN_PORT: '9101',
      HEARTH_MQTT_PORT: '0',
      HEARTH_STORE__COALESCE_MS: '250',
      HEARTH_MQTT__ALLOW_ANONYMOUS: 'true',
      HEARTH_PLUGINS__PROBE__ENABLED: 'false',
      HEARTH_PLUGINS__TWO_WORDS__ENABLED: 'false',
      HEARTH_ADMIN_KEY: 'not-a-setting',
    };
    expect(envOverrides(env).map((o) => o.path.join('.'))).toContain('plugins.probe.enabled');
    // The variable docs/configuration.md prints for a dashed plugin name reaches that plugin.
    expect(envOverrides(env).map((o) => o.path.join('.'))).toContain('plugins.two-words.enabled');
    const c = validateConfig(readConfigSources({ env }), [
      probe('probe', { events: [] }),
      probe('two-words', { events: [] }),
    ]);
    expect(c.dataDir).toBe('/srv/hearth');
    expect(c.http.main.port).toBe(0);
    expect(c.http.admin.port).toBe(9101);
    expect(c.mqtt.port).toBe(0);
    expect(c.store.coalesceMs).toBe(250);
    expect(c.mqtt.allowAnonymous).toBe(true);
    expect(c.plugins.probe?.enabled).toBe(false);
    expect(c.plugins['two-words']?.enabled).toBe(false);
  });

  it('lists every problem as <path> <message>', () => {
    const raw = readConfigSources({
      env: {},
      overrides: {
        http: { main: { port: 70000 } },
        log: { level: 'loud' },
        colour: 'blue',
        plugins: { ghost: {} },
      },
    });
    try {
      validateConfig(raw, []);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message.split('\n').sort()).toEqual([
        'colour is not a known setting',
        'http.main.port must be <= 65535',
        'log.level must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
        'plugins.ghost is not a known plugin',
      ]);
    }
  });

  it('validates plugin slices against the plugin schema', () => {
    const raw = readConfigSources({ env: {}, overrides: { plugins: { probe: { enabled: 'yes' } } } });
    expect(() => validateConfig(raw, [probe('probe', { events: [] })])).toThrow(
      'plugins.probe.enabled must be boolean',
    );
  });

  it('`hearth config check` prints the errors and exits non-zero', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-cfg-'));
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ http: { admin: { port: -1 } }, store: { coalesceMs: 'fast' } }));
    const r = cli(['config', 'check', '--config', file]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n').sort()).toEqual([
      'http.admin.port must be >= 0',
      'store.coalesceMs must be integer',
    ]);
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{ nope');
    const r2 = cli(['config', 'check'], { HEARTH_CONFIG: broken });
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(/broken\.json is not a JSON object/);
    const ok = cli(['config', 'check'], { HEARTH_DATA_DIR: dir });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('config OK');
  });
});
