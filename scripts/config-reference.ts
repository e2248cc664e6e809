// Renders the configuration reference (docs/configuration.md) from the core's and every plugin's JSON Schema,
// so the documentation cannot drift from what the hub validates. `--check` fails when the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pluginsDir } from '../core/cli/boot.ts';
import { coreSchema, pluginLoaderProperties } from '../core/config/schema.ts';
import { listSettings } from '../core/config/settings.ts';
import { discoverPlugins } from '../core/plugin/discover.ts';
import type { JsonSchema } from '../core/plugin/types.ts';

const out = path.resolve(import.meta.dirname, '../docs/configuration.md');

const cell = (v: unknown): string =>
  v === undefined ? '' : `\`${JSON.stringify(v)}\``.replace(/\|/g, '\\|');

const typeOf = (s: JsonSchema): string => {
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' \\| ');
  if (Array.isArray(s.oneOf)) return (s.oneOf as JsonSchema[]).map(typeOf).join(' \\| ');
  if (Array.isArray(s.type)) return (s.type as string[]).join(' \\| ');
  return String(s.type ?? 'any');
};

function rows(schema: JsonSchema, prefix: string, envPrefix: string, acc: string[]): void {
  for (const { path: p, env, schema: prop } of listSettings(schema, prefix, envPrefix)) {
    const text = [prop.title, prop.description].filter(Boolean).join(': ');
    acc.push(`| \`${p}\` | ${typeOf(prop)} | ${cell(prop.default)} | \`${env}\` | ${text} |`);
  }
}

export async function render(): Promise<string> {
  const plugins = await discoverPlugins(pluginsDir);
  const lines = [
    '# Configuration reference',
    '',
    'Generated from the JSON Schemas by `npm run docs:config`; `npm test` fails when it is stale.',
    'Settings come from `config/default.json`, then the file named by `--config PATH` or `HEARTH_CONFIG`,',
    'then `HEARTH_*` environment variables. One rule names every variable: `HEARTH_`, then each level of the',
    "setting's path in upper case with `_` between its words and `__` between levels (`store.coalesceMs` is",
    '`HEARTH_STORE__COALESCE_MS`, `plugins.auth.access_token_ttl` is `HEARTH_PLUGINS__AUTH__ACCESS_TOKEN_TTL`).',
    'Values of string settings are taken as they are; other values are parsed as JSON (`60`, `true`, `["a"]`).',
    'Short aliases: `HEARTH_DATA_DIR`, `HEARTH_HOST`, `HEARTH_PORT` (main), `HEARTH_ADMIN_PORT`, `HEARTH_MQTT_PORT`,',
    '`HEARTH_MQTT_URL`, `HEARTH_LOG_LEVEL`. `HEARTH_ADMIN_KEY` sets the admin key.',
    '',
    '## Core',
    '',
    '| Setting | Type | Default | Environment | Meaning |',
    '|---|---|---|---|---|',
  ];
  rows(coreSchema, '', 'HEARTH_', lines);
  for (const p of plugins) {
    lines.push('', `## Plugin \`${p.name}\``, '', p.description, '');
    lines.push('| Setting | Type | Default | Environment | Meaning |', '|---|---|---|---|---|');
    const schema = {
      properties: { ...pluginLoaderProperties, ...((p.configSchema.properties ?? {}) as object) },
    };
    rows(schema, `plugins.${p.name}.`, `HEARTH_PLUGINS__${p.name.replace(/-/g, '_').toUpperCase()}__`, lines);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const text = await render();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(out, 'utf8');
    } catch {}
    if (current !== text) {
      console.error('docs/configuration.md is stale: run `npm run docs:config`');
      process.exit(1);
    }
  } else {
    writeFileSync(out, text);
    console.log(`wrote ${path.relative(process.cwd(), out)}`);
  }
}
