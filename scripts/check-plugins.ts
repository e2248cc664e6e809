// The manifest check (in the spirit of Home Assistant's): every plugin's metadata and config schema are valid,
// requirements name real plugins, and every setting is documented. Part of `npm test`.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { pluginsDir } from '../core/cli/boot.ts';
import { type AnyPlugin, discoverPlugins } from '../core/plugin/discover.ts';
import type { JsonSchema } from '../core/plugin/types.ts';

const problems: string[] = [];

function undocumented(schema: JsonSchema, where: string): void {
  for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const at = `${where}.${key}`;
    if (typeof prop.title !== 'string' || typeof prop.description !== 'string') {
      problems.push(`${at}: every setting needs a title and a description`);
    }
    if (prop.type === 'object') undocumented(prop, at);
  }
}

let plugins: AnyPlugin[] = [];
try {
  plugins = await discoverPlugins(pluginsDir);
} catch (err) {
  problems.push((err as Error).message);
}
const folders = readdirSync(pluginsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
for (const folder of folders) {
  if (!plugins.some((p) => p.name === folder))
    problems.push(`plugins/${folder}: no index.ts exporting a plugin`);
}
const names = new Set(plugins.map((p) => p.name));
const ajv = new Ajv({ strict: false });
for (const p of plugins) {
  for (const dep of [...(p.requires ?? []), ...(p.optional ?? [])]) {
    if (!names.has(dep)) problems.push(`plugins/${p.name}: requires unknown plugin "${dep}"`);
  }
  try {
    ajv.compile(p.configSchema);
  } catch (err) {
    problems.push(`plugins/${p.name}: configSchema does not compile: ${(err as Error).message}`);
  }
  undocumented(p.configSchema, `plugins.${p.name}`);
  for (const c of p.commands ?? []) {
    if (!c.name || !c.usage.startsWith('hearth ') || !c.summary) {
      problems.push(
        `plugins/${p.name}: command "${c.name}" needs a name, a usage starting with "hearth " and a summary`,
      );
    }
  }
}

if (problems.length > 0) {
  for (const line of problems) console.error(line);
  process.exit(1);
}
console.log(
  `plugins OK: ${plugins.map((p) => `${p.name}@${p.version}`).join(', ')} (${path.relative(process.cwd(), pluginsDir)})`,
);
