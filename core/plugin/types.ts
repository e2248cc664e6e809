import type { Logger } from 'pino';
import type { Bus } from '../bus/events.ts';
import type { HttpApi } from '../http/types.ts';
import type { MetricsApi } from '../metrics/types.ts';
import type { MqttApi } from '../mqtt/types.ts';
import type { SecretsApi } from '../secrets/vault.ts';
import type { PluginStore } from '../store/types.ts';
import type { WsApi } from '../ws/types.ts';

/** A JSON Schema (draft 2020-12 subset that ajv understands). Every property has title, description, default. */
export type JsonSchema = { [key: string]: unknown };

/**
 * What plugins export to each other, by plugin name. Each plugin adds its entry by declaration merging:
 *
 *   declare module '../../core/plugin/types.ts' {
 *     interface PluginExportsMap { lighting: LightingExports }
 *   }
 */
// biome-ignore lint/suspicious/noEmptyInterface: extended by declaration merging in plugins
export interface PluginExportsMap {}

export type PluginName = keyof PluginExportsMap & string;

/** Health a running plugin reports on `/ready` (and the admin status). */
export interface PluginHealth {
  status: 'ok' | 'degraded' | 'down';
  detail?: string;
}

/** What `start` returns: the running plugin. The loader calls `stop()` in reverse start order. */
export interface RunningPlugin<E = unknown> {
  exports?: E;
  stop(): Promise<void> | void;
  health?(): PluginHealth;
}

/** The admin surface of the running hub, as a CLI command sees it. */
export interface AdminClient {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

export interface CliIo {
  /** Talks to the running hub's admin API, or to a short-lived hub on loopback when none runs. */
  admin: AdminClient;
  out(line: string): void;
  err(line: string): void;
}

/** One `--name` option of a command, as `node:util` parseArgs takes it, plus the line `--help` shows. */
export interface CliOption {
  type: 'string' | 'boolean';
  /** Repeatable (`--topic a --topic b`): the value is a list. */
  multiple?: boolean;
  short?: string;
  description: string;
}

/** A command's arguments, parsed and checked before anything starts. */
export interface CliInput {
  /** The words after the command's name. */
  positionals: string[];
  /** Options by name; `multiple` ones are lists. Absent options are undefined. */
  values: Record<string, string | boolean | string[] | undefined>;
}

/**
 * A subcommand of the `hearth` CLI, e.g. `site create`. The CLI parses every command's arguments with one
 * parser (node:util parseArgs, strict): unknown options, missing values and a wrong number of words are
 * usage errors (exit 2, usage on stderr) found before a hub is reached or started.
 */
export interface CliCommand {
  /** Space-separated words, e.g. `site create`. */
  name: string;
  usage: string;
  summary: string;
  options?: Record<string, CliOption>;
  /** How many words may follow the name: [min, max]; max omitted = no limit. Default: none. */
  positionals?: [number, number?];
  /** Only reads data: with no hub running and no data directory yet, it fails rather than create one. */
  readsOnly?: boolean;
  /** Further checks of the arguments (a value's form, an environment variable): the problem, or null. */
  check?(input: CliInput): string | null;
  /** Returns the process exit code. */
  run(input: CliInput, io: CliIo): Promise<number>;
}

export interface NoticesApi {
  /** Sets (or clears with null) a notice shown in `/ready`, the admin system status and the log. */
  set(id: string, text: string | null): void;
  list(): Array<{ source: string; id: string; text: string }>;
}

export interface RedactApi {
  /** A literal secret (an upstream API key from config) that must never reach a log line. */
  value(secret: string): void;
  /** A URL path pattern whose first capture group is a secret, e.g. `/\/site\/([^/?#]+)/`. */
  path(pattern: RegExp): void;
}

export interface AdminKeyApi {
  /** Constant-time check of a presented admin key (or the local control token). */
  verify(presented: string | undefined): boolean;
  /**
   * True when this start generated the admin key in a new data directory (no key preset with
   * HEARTH_ADMIN_KEY, no restored data): a hub nobody has set up yet (the console offers its claim).
   */
  readonly newHub: boolean;
  /**
   * A credential the admin API accepts for this run only (the local control token), for a plugin that
   * calls the admin API on behalf of an operator it has signed in itself (the console's owner password).
   */
  runToken(): string;
}

export interface PluginContext<C = Record<string, unknown>> {
  readonly name: string;
  /** This plugin's validated config slice, defaults applied. */
  readonly config: C;
  readonly log: Logger;
  readonly store: PluginStore;
  readonly bus: Bus;
  readonly http: HttpApi;
  readonly ws: WsApi;
  readonly mqtt: MqttApi;
  readonly metrics: MetricsApi;
  readonly notices: NoticesApi;
  /** This plugin's secrets, encrypted at rest and redacted from logs (docs/secrets.md). */
  readonly secrets: SecretsApi;
  readonly redact: RedactApi;
  readonly adminKey: AdminKeyApi;
  /**
   * Prints a line on the operator's console (stdout, never the log) next to the start banner: for
   * first-run information such as the URL of a generated site.
   */
  print(line: string): void;
  /** Aborted when the plugin is being stopped. */
  readonly signal: AbortSignal;
  /** The exports of a plugin named in `requires` (started before this one). */
  use<K extends PluginName>(name: K): PluginExportsMap[K];
  /** The exports of a plugin named in `optional`, or undefined when it is not running. */
  tryUse<K extends PluginName>(name: K): PluginExportsMap[K] | undefined;
}

export interface PluginDefinition<C = Record<string, unknown>, E = unknown> {
  /** Must equal the folder name under `plugins/`. */
  name: string;
  version: string;
  description: string;
  /** Plugins that must be running before this one starts. */
  requires?: string[];
  /** Plugins that, when enabled, start before this one. */
  optional?: string[];
  /** JSON Schema of `plugins.<name>` in the config (without the loader's own `enabled`/`required`). */
  configSchema: JsonSchema;
  commands?: CliCommand[];
  start(ctx: PluginContext<C>): Promise<RunningPlugin<E>>;
}

/** Helper so a plugin file gets full type checking of its definition. */
export function definePlugin<C, E>(def: PluginDefinition<C, E>): PluginDefinition<C, E> {
  return def;
}
