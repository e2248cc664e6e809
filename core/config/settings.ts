import type { JsonSchema } from '../plugin/types.ts';
import { envLevel } from './env.ts';

/** One documented setting: its path, the variable that sets it, and its schema. */
export interface SettingDoc {
  path: string;
  env: string;
  schema: JsonSchema;
}

/**
 * Every leaf setting under `schema` (objects with named properties are walked, not listed), with its
 * environment variable by the rule core/config/env.ts reads back.
 */
export function listSettings(schema: JsonSchema, prefix = '', envPrefix = 'HEARTH_'): SettingDoc[] {
  const out: SettingDoc[] = [];
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [key, prop] of Object.entries(props)) {
    const path = `${prefix}${key}`;
    const env = `${envPrefix}${envLevel(key)}`;
    if (prop.type === 'object' && prop.properties) out.push(...listSettings(prop, `${path}.`, `${env}__`));
    else out.push({ path, env, schema: prop });
  }
  return out;
}
