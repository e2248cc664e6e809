import type { JsonSchema } from '../plugin/types.ts';

/**
 * HEARTH_* environment overrides. Short aliases cover the common settings; any setting can be reached as
 * HEARTH_<PATH> with `__` between levels. One rule names every variable, whatever the setting's own
 * spelling: each level is the setting name in upper case with `_` between its words (`coalesceMs` →
 * COALESCE_MS, `access_token_ttl` → ACCESS_TOKEN_TTL), a plugin's dashes become `_` (mqtt-devices →
 * MQTT_DEVICES). Reading a variable back, each level is matched against the schema's setting names by that
 * rule, so camelCase and snake_case settings both work; a level the schema does not know is read as
 * camelCase (and then reported as not a known setting). Values are parsed as JSON when they can be,
 * except for settings whose schema says they are strings.
 */
const aliases: Record<string, string> = {
  HEARTH_DATA_DIR: 'dataDir',
  HEARTH_HOST: 'host',
  HEARTH_PORT: 'http.main.port',
  HEARTH_HTTP_PORT: 'http.main.port',
  HEARTH_ADMIN_PORT: 'http.admin.port',
  HEARTH_MQTT_PORT: 'mqtt.port',
  HEARTH_MQTT_URL: 'mqtt.external.url',
  HEARTH_LOG_LEVEL: 'log.level',
};

/** Variables that are not config settings. */
const notSettings = new Set(['HEARTH_CONFIG', 'HEARTH_ADMIN_KEY']);

/** The variable level of one setting name: `coalesceMs` and `coalesce_ms` both give COALESCE_MS. */
export const envLevel = (key: string): string =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toUpperCase();

const camel = (word: string) => word.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** Plugin folder names are lower case with dashes (`mqtt-devices`), never camelCase. */
const pluginName = (word: string) => word.toLowerCase().replace(/_/g, '-');

type Props = Record<string, JsonSchema>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The named properties a schema level offers, including those of its object variants (`oneOf`). */
function propertiesOf(schema: JsonSchema | undefined): Props | undefined {
  if (!schema) return undefined;
  const own = isObject(schema.properties) ? (schema.properties as Props) : undefined;
  const variants = Array.isArray(schema.oneOf) ? (schema.oneOf as JsonSchema[]) : [];
  const merged: Props = Object.create(null) as Props;
  let any = own !== undefined;
  if (own) Object.assign(merged, own);
  for (const v of variants) {
    const p = propertiesOf(v);
    if (p) {
      Object.assign(merged, p);
      any = true;
    }
  }
  return any ? merged : undefined;
}

/** Whether a value for this schema is a string and must not go through JSON.parse ("8080" stays "8080"). */
function isStringSetting(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  if (schema.type === 'string') return true;
  return Array.isArray(schema.enum) && (schema.enum as unknown[]).every((v) => typeof v === 'string');
}

/** Resolves the variable's levels to setting names, walking the schema where it knows the level. */
function resolve(levels: string[], schema: JsonSchema | undefined): { path: string[]; leaf?: JsonSchema } {
  const path: string[] = [];
  let node: JsonSchema | undefined = schema;
  levels.forEach((level, i) => {
    const props = propertiesOf(node);
    const known = props ? Object.keys(props).find((k) => envLevel(k) === level) : undefined;
    if (known !== undefined) {
      path.push(known);
      node = props?.[known];
      return;
    }
    const isPlugin = i === 1 && path[0] === 'plugins';
    path.push(isPlugin ? pluginName(level) : camel(level));
    node = undefined;
  });
  return node ? { path, leaf: node } : { path };
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export interface EnvOverride {
  variable: string;
  path: string[];
  value: unknown;
}

/**
 * The overrides the environment asks for. `schema` is the whole config's schema (core, with each plugin's
 * slice under `plugins`); without it only core settings and camelCase plugin settings resolve.
 */
export function envOverrides(env: NodeJS.ProcessEnv, schema?: JsonSchema): EnvOverride[] {
  const out: EnvOverride[] = [];
  for (const [variable, raw] of Object.entries(env)) {
    if (!variable.startsWith('HEARTH_') || raw === undefined || notSettings.has(variable)) continue;
    const alias = aliases[variable];
    const name = variable.slice('HEARTH_'.length);
    let resolved: { path: string[]; leaf?: JsonSchema } | undefined;
    if (alias) resolved = resolve(alias.split('.').map(envLevel), schema);
    else if (name.includes('__')) resolved = resolve(name.split('__'), schema);
    else if (Object.keys(propertiesOf(schema) ?? {}).some((k) => envLevel(k) === name)) {
      // A top-level setting (HEARTH_PLUGINS); other one-word HEARTH_ variables (HEARTH_PASSWORD) are not settings.
      resolved = resolve([name], schema);
    }
    if (!resolved) continue;
    // Without a schema, a data dir or host is still always a string, even when it looks like a number.
    const asString = resolved.leaf ? isStringSetting(resolved.leaf) : resolved.path.length === 1;
    const value = asString ? raw : parseValue(raw);
    out.push({ variable, path: resolved.path, value });
  }
  return out;
}

/** Sets one setting; an object value merges into what the lower layers already set. */
export function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  const before = node[last];
  node[last] = isObject(before) && isObject(value) ? { ...before, ...value } : value;
}
