import { HearthError } from '../errors.ts';

export interface ListenerConfig {
  port: number;
  host?: string;
}

export interface ExternalBrokerConfig {
  url: string;
  username?: string;
  password?: string;
  rejectUnauthorized?: boolean;
  caFile?: string;
}

export interface PluginSlice {
  enabled: boolean;
  required: boolean;
  [key: string]: unknown;
}

/** The validated configuration, defaults applied (see core/config/schema.ts for every field's meaning). */
export interface HearthConfig {
  dataDir: string;
  host: string;
  log: {
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    format: 'auto' | 'json' | 'pretty';
  };
  http: {
    main: ListenerConfig;
    admin: ListenerConfig;
    bodyLimit: string;
    tls: { enabled: boolean; certFile?: string; keyFile?: string; hostnames: string[] };
  };
  mqtt: {
    enabled: boolean;
    port: number;
    host?: string;
    allowAnonymous: boolean;
    maxPacketSize: number;
    clientQueueBytes: number;
    connectTimeoutMs: number;
    maxPendingConnections: number;
    external: ExternalBrokerConfig | null;
  };
  store: { coalesceMs: number };
  lifecycle: { pluginStartTimeoutMs: number; shutdownGraceMs: number };
  secrets: { keyFile?: string };
  metrics: { username: string; password?: string };
  plugins: Record<string, PluginSlice>;
}

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
