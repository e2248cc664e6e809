import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import type { JsonSchema, PluginDefinition } from '../plugin/types.ts';
import { envOverrides, setPath } from './env.ts';
import { coreSchema, pluginLoaderProperties } from './schema.ts';
import { ConfigError, type ConfigIssue, type HearthConfig } from './types.ts';
import { validatorFor } from './validators.ts';

const defaultsFile = fileURLToPath(new URL('../../config/default.json', import.meta.url));

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge where `over` wins; arrays and scalars are replaced, not merged. */
export function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isObject(b) && isObject(v) ? merge(b, v) : v;
  }
  return out;
}

function readJson(file: string, label: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([
      { path: label, message: `cannot be read: ${(err as NodeJS.ErrnoException).code}` },
    ]);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (!isObject(value)) throw new Error('not an object');
    return value;
  } catch (err) {
    throw new ConfigError([{ path: label, message: `is not a JSON object: ${(err as Error).message}` }]);
  }
}

export interface ConfigSources {
  /** `--config PATH` or HEARTH_CONFIG. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Programmatic overrides (tests), applied after the environment. */
  overrides?: Json;
  /** Known plugins: their schemas resolve HEARTH_PLUGINS__<NAME>__<SETTING> to the setting's own spelling. */
  plugins?: ReadonlyArray<PluginDefinition<never, unknown>>;
}

/** Whether the merged (unvalidated) config leaves a plugin enabled. */
export function pluginEnabled(raw: Json, name: string): boolean {
  const slice = isObject(raw.plugins) ? raw.plugins[name] : undefined;
  return !(isObject(slice) && slice.enabled === false);
}

/** Defaults ← user file ← HEARTH_* environment ← overrides. Not validated yet. */
export function readConfigSources(sources: ConfigSources = {}): Json {
  const env = sources.env ?? process.env;
  let raw = readJson(defaultsFile, 'config/default.json');
  const file = sources.file ?? env.HEARTH_CONFIG;
  if (file) raw = merge(raw, readJson(path.resolve(file), file));
  for (const o of envOverrides(env, fullSchema(sources.plugins ?? []))) setPath(raw, o.path, o.value);
  if (sources.overrides) raw = merge(raw, sources.overrides);
  return raw;
}

const toIssue = (prefix: string, e: ErrorObject): ConfigIssue => {
  const tail = e.instancePath.split('/').filter(Boolean).join('.');
  let where = [prefix, tail].filter(Boolean).join('.');
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') {
    where = [where, String(e.params.additionalProperty)].filter(Boolean).join('.');
    message = 'is not a known setting';
  } else if (e.keyword === 'enum') {
    message = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { path: where || '(root)', message };
};

export function pluginSliceSchema(def: Pick<PluginDefinition<never, unknown>, 'configSchema'>): JsonSchema {
  const own = def.configSchema;
  const props = isObject(own.properties) ? own.properties : {};
  return { ...own, type: 'object', default: {}, properties: { ...pluginLoaderProperties, ...props } };
}

/** The whole config's schema: the core's, with each known plugin's slice under `plugins`. */
export function fullSchema(plugins: ReadonlyArray<PluginDefinition<never, unknown>>): JsonSchema {
  const slices: Record<string, JsonSchema> = Object.create(null) as Record<string, JsonSchema>;
  for (const def of plugins) slices[def.name] = pluginSliceSchema(def);
  const props = coreSchema.properties as Record<string, JsonSchema>;
  return { ...coreSchema, properties: { ...props, plugins: { ...props.plugins, properties: slices } } };
}

/** What a disabled plugin's slice is checked against: only the loader's own keys. */
export const loaderOnlySchema: JsonSchema = { type: 'object', properties: pluginLoaderProperties };

/**
 * Validates the merged config against the core schema and every known plugin's schema, applying
 * defaults. Throws a ConfigError listing every problem as `<path> <message>`.
 */
export function validateConfig(
  raw: Json,
  plugins: ReadonlyArray<PluginDefinition<never, unknown>>,
  /** Installed but not loaded (disabled) plugins: only their `enabled`/`required` keys are checked. */
  disabled: readonly string[] = [],
): HearthConfig {
  const data = structuredClone(raw);
  const issues: ConfigIssue[] = [];
  const validateCore = validatorFor(coreSchema);
  if (!validateCore(data)) issues.push(...(validateCore.errors ?? []).map((e) => toIssue('', e)));
  const slices = isObject(data.plugins) ? data.plugins : {};
  const known = new Set([...plugins.map((p) => p.name), ...disabled]);
  for (const [name, slice] of Object.entries(slices)) {
    // A slice that only switches a plugin off (config/default.json turns optional plugins off) is fine
    // where that plugin is not installed.
    const onlyOff = isObject(slice) && slice.enabled === false && Object.keys(slice).length === 1;
    if (!known.has(name) && !onlyOff)
      issues.push({ path: `plugins.${name}`, message: 'is not a known plugin' });
  }
  for (const def of plugins) {
    slices[def.name] ??= {};
    const validate = validatorFor(pluginSliceSchema(def));
    if (!validate(slices[def.name])) {
      issues.push(...(validate.errors ?? []).map((e) => toIssue(`plugins.${def.name}`, e)));
    }
  }
  const loaderOnly = validatorFor(loaderOnlySchema);
  for (const name of disabled) {
    if (!loaderOnly(slices[name]))
      issues.push(...(loaderOnly.errors ?? []).map((e) => toIssue(`plugins.${name}`, e)));
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return data as unknown as HearthConfig;
}
