import { describe, expect, it } from 'vitest';
import { loadAll, pluginsDir } from '../../core/cli/boot.ts';
import { pluginSliceSchema } from '../../core/config/load.ts';
import { coreSchema } from '../../core/config/schema.ts';
import { listSettings, type SettingDoc } from '../../core/config/settings.ts';
import { discoverPlugins } from '../../core/plugin/discover.ts';
import type { JsonSchema } from '../../core/plugin/types.ts';

/** Settings whose valid values a schema walk cannot invent (a pattern, a free-form object). */
const samples: Record<string, unknown> = {
  dataDir: '/srv/hearth-env-test',
  'http.bodyLimit': '2mb',
  'http.main.publicUrl': 'https://hearth.example.net',
  'http.admin.publicUrl': 'https://admin.hearth.example.net',
  plugins: { lighting: { reconcileMs: 1234 } },
  'plugins.lighting.subdefBase': 'ff:80:01:00',
  'plugins.auth.oidc.providers[].id': 'corp-idp',
  'plugins.auth.oidc.providers[].issuer': 'https://idp.example.com',
  'plugins.hue.discovery.interface': '192.168.10.2',
  'plugins.hue.discovery.address': '127.0.0.1',
  'plugins.console.announce.interface': '192.168.10.2',
  'plugins.console.announce.address': '127.0.0.1',
};

/** A valid value of `schema` that differs from its default, so seeing it proves the variable was read. */
function sample(schema: JsonSchema, where: string): unknown {
  if (where in samples) return samples[where];
  const def = schema.default;
  if (Array.isArray(schema.enum)) return [...(schema.enum as unknown[])].reverse().find((v) => v !== def);
  if (Array.isArray(schema.oneOf)) {
    const variant = (schema.oneOf as JsonSchema[]).find((v) => v.type !== 'null' && v.type !== undefined);
    if (!variant) throw new Error(`${where}: add a sample`);
    return sample(variant, `${where}[variant]`);
  }
  if (typeof schema.pattern === 'string')
    throw new Error(`${where}: add a sample matching ${schema.pattern}`);
  switch (schema.type) {
    case 'boolean':
      return def !== true;
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
      const base = typeof def === 'number' ? def + 1 : min + 1;
      return base <= max ? base : max - 1;
    }
    case 'string': {
      // Digits on purpose: a string setting must not come out as a number.
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return '7'.repeat(Math.max(8, min));
    }
    case 'array':
      return [sample((schema.items ?? { type: 'string' }) as JsonSchema, `${where}[]`)];
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(required.map((k) => [k, sample(props[k] as JsonSchema, `${where}.${k}`)]));
    }
    default:
      throw new Error(`${where}: add a sample`);
  }
}

const at = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);

async function documentedSettings(): Promise<SettingDoc[]> {
  const plugins = await discoverPlugins(pluginsDir);
  // The same walk docs/configuration.md is generated from (scripts/config-reference.ts).
  return [
    ...listSettings(coreSchema),
    ...plugins.flatMap((p) =>
      listSettings(
        pluginSliceSchema(p),
        `plugins.${p.name}.`,
        `HEARTH_PLUGINS__${p.name.replace(/-/g, '_').toUpperCase()}__`,
      ),
    ),
  ];
}

describe('configuration through environment variables', () => {
  it('every documented setting can be set through its documented variable (auth snake_case settings exited 2)', async () => {
    const settings = await documentedSettings();
    expect(settings.map((s) => s.env)).toContain('HEARTH_PLUGINS__AUTH__ACCESS_TOKEN_TTL');
    const failures: string[] = [];
    for (const s of settings) {
      const value = sample(s.schema, s.path);
      const raw = typeof value === 'string' ? value : JSON.stringify(value);
      try {
        // A plugin config/default.json turns off (matter) is switched on: a disabled plugin's settings are
        // not read through its schema, since it is not even imported.
        const on = /^HEARTH_PLUGINS__(\w+?)__/.exec(s.env)?.[1];
        const enable =
          on && !s.env.endsWith('__ENABLED') ? { [`HEARTH_PLUGINS__${on}__ENABLED`]: 'true' } : {};
        const { config } = await loadAll({ env: { ...enable, [s.env]: raw } });
        const got = at(config, s.path.split('.'));
        if (typeof value === 'object' && value !== null) expect(got).toMatchObject(value);
        else expect(got).toEqual(value);
      } catch (err) {
        failures.push(`${s.env}=${raw}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a string setting whose value looks like JSON stays a string', async () => {
    const { config } = await loadAll({
      env: { HEARTH_METRICS__PASSWORD: '12345678', HEARTH_PLUGINS__AUTH__ISSUER: 'true' },
    });
    expect(config.metrics.password).toBe('12345678');
    expect(config.plugins.auth?.issuer).toBe('true');
  });

  it('one-word variables that are not settings (HEARTH_PASSWORD) are left alone', async () => {
    const { config } = await loadAll({ env: { HEARTH_PASSWORD: 'x', HEARTH_TEST_LOG: 'debug' } });
    expect(config).not.toHaveProperty('password');
  });
});
