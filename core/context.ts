import type { Logger } from 'pino';
import type { EventBus } from './bus/bus.ts';
import { HearthError } from './errors.ts';
import type { HttpService } from './http/service.ts';
import type { Redactor } from './log/redactor.ts';
import type { MetricsRegistry } from './metrics/registry.ts';
import type { BrokerService } from './mqtt/types.ts';
import type { AnyPlugin } from './plugin/discover.ts';
import type { ContextFactory, PluginManager } from './plugin/manager.ts';
import type { NoticesApi, PluginContext, PluginName } from './plugin/types.ts';
import type { SecretVault } from './secrets/vault.ts';
import type { StoreRoot } from './store/types.ts';
import type { WsHub } from './ws/hub.ts';

export interface CoreServices {
  log: Logger;
  redactor: Redactor;
  store: () => StoreRoot;
  bus: EventBus;
  http: HttpService;
  ws: WsHub;
  broker: BrokerService;
  metrics: MetricsRegistry;
  notices: Notices;
  secrets: () => SecretVault;
  plugins: () => PluginManager;
  pluginConfig: (name: string) => Record<string, unknown>;
  verifyAdminKey: (presented: string | undefined) => boolean;
  /** Whether this start generated the admin key in a new data directory. */
  newHub: boolean;
  runToken: () => string;
  print: (line: string) => void;
}

/**
 * Notices from every plugin (e.g. "DCR is open", "no translation engine"), each logged once: again only
 * when its text changes or it comes back after being cleared, not when its plugin restarts.
 */
export class Notices {
  private readonly items = new Map<string, { source: string; id: string; text: string }>();
  /** What was last logged per notice; survives a plugin restart (a data restore restarts them all). */
  private readonly logged = new Map<string, string>();

  constructor(private readonly log: Logger) {}

  forOwner(owner: string): NoticesApi {
    return {
      set: (id, text) => {
        const key = `${owner}/${id}`;
        if (text === null) {
          this.items.delete(key);
          this.logged.delete(key);
          return;
        }
        this.items.set(key, { source: owner, id, text });
        if (this.logged.get(key) === text) return;
        this.logged.set(key, text);
        this.log.warn({ source: owner, notice: id }, text);
      },
      list: () => this.list(),
    };
  }

  removeOwner(owner: string): void {
    for (const [k, v] of this.items) if (v.source === owner) this.items.delete(k);
  }

  list(): Array<{ source: string; id: string; text: string }> {
    return [...this.items.values()];
  }
}

/** Builds each plugin's context: everything scoped to it, and one dispose that undoes it all. */
export function contextFactory(core: CoreServices): ContextFactory {
  return (def: AnyPlugin, signal: AbortSignal) => {
    const name = def.name;
    const log = core.log.child({ name });
    const bus = core.bus.forOwner(name);
    const http = core.http.forOwner(name);
    const ws = core.ws.forOwner(name);
    const mqtt = core.broker.forOwner(name);
    const allowed = new Set([...(def.requires ?? []), ...(def.optional ?? [])]);
    const exportsOf = (other: string): unknown => {
      if (!allowed.has(other))
        throw new HearthError(
          'plugin_undeclared',
          `plugin ${name} did not declare "${other}" in requires/optional`,
        );
      return core.plugins().exportsOf(other);
    };
    const ctx: PluginContext<unknown> = {
      name,
      config: core.pluginConfig(name),
      log,
      store: core.store().forOwner(name),
      bus,
      http,
      ws,
      mqtt,
      metrics: core.metrics.forOwner(name),
      notices: core.notices.forOwner(name),
      secrets: core.secrets().forOwner(name),
      redact: {
        value: (secret) => core.redactor.addValue(secret),
        path: (pattern) => core.redactor.addPath(pattern),
      },
      adminKey: { verify: core.verifyAdminKey, newHub: core.newHub, runToken: core.runToken },
      print: core.print,
      signal,
      use: <K extends PluginName>(other: K) => {
        const value = exportsOf(other);
        if (value === undefined)
          throw new HearthError(
            'plugin_not_running',
            `plugin ${name} needs "${other}", which is not running`,
          );
        return value as never;
      },
      tryUse: <K extends PluginName>(other: K) => exportsOf(other) as never,
    };
    const dispose = async () => {
      bus.dispose();
      ws.dispose();
      core.notices.removeOwner(name);
      await Promise.allSettled([http.dispose(), mqtt.dispose()]);
    };
    return { ctx, dispose };
  };
}
