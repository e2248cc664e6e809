import type { FromSchema } from 'json-schema-to-ts';
import { HearthError } from '../errors.ts';
import type { coreSchema } from './schema.ts';

/** A listener's settings (`http.main`, `http.admin`, a plugin's own listener). */
export interface ListenerConfig {
  port: number;
  host?: string | undefined;
  publicUrl?: string | undefined;
}

export type ExternalBrokerConfig = NonNullable<HearthConfig['mqtt']['external']>;

export interface PluginSlice {
  enabled: boolean;
  required: boolean;
  [key: string]: unknown;
}

/**
 * The validated configuration, defaults applied: derived from the schema in core/config/schema.ts (the
 * one source of truth for every field's name, type and meaning), with the plugin slices typed loosely
 * because each plugin validates its own.
 */
export type HearthConfig = Omit<FromSchema<typeof coreSchema>, 'plugins'> & {
  plugins: Record<string, PluginSlice>;
};

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** A config error as printed: `<path> <message>`. */
export interface ConfigIssue {
  path: string;
  message: string;
}

export class ConfigError extends HearthError {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super('config_invalid', issues.map((i) => `${i.path} ${i.message}`).join('\n'));
    this.issues = issues;
  }
}
