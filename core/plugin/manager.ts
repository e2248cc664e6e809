import type { Logger } from 'pino';
import { HearthError } from '../errors.ts';
import type { AnyPlugin } from './discover.ts';
import { orderPlugins } from './order.ts';
import type { PluginContext, PluginHealth, RunningPlugin } from './types.ts';

export type PluginStatus = 'running' | 'failed' | 'disabled' | 'stopped';

export interface PluginRecord {
  def: AnyPlugin;
  status: PluginStatus;
  error?: string;
  running?: RunningPlugin;
  abort?: AbortController;
  dispose?: () => Promise<void>;
}

export type ContextFactory = (
  def: AnyPlugin,
  signal: AbortSignal,
) => { ctx: PluginContext<unknown>; dispose(): Promise<void> };

export class RequiredPluginError extends HearthError {
  constructor(message: string) {
    super('plugin_required_failed', message);
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts plugins in dependency order with a timeout each, isolates failures (a failed plugin is disabled
 * with its dependents unless it is required), and stops in reverse order.
 */
export class PluginManager {
  readonly records = new Map<string, PluginRecord>();
  private started: string[] = [];

  constructor(
    private readonly plugins: AnyPlugin[],
    private readonly settings: (name: string) => { enabled: boolean; required: boolean },
    private readonly log: Logger,
    private readonly startTimeoutMs: number,
  ) {
    for (const def of plugins) this.records.set(def.name, { def, status: 'stopped' });
  }

  exportsOf(name: string): unknown {
    const r = this.records.get(name);
    return r?.status === 'running' ? r.running?.exports : undefined;
  }

  async startAll(makeContext: ContextFactory): Promise<void> {
    const { order, unmet } = orderPlugins(this.plugins, (n) => this.settings(n).enabled);
    for (const def of this.plugins) if (!this.settings(def.name).enabled) this.set(def.name, 'disabled');
    for (const { plugin, reason } of unmet) this.fail(plugin, reason);
    for (const def of order) {
      const missing = (def.requires ?? []).find((d) => this.records.get(d)?.status !== 'running');
      if (missing) {
        this.fail(def, `requires plugin "${missing}", which failed to start`);
        continue;
      }
      await this.startOne(def, makeContext);
    }
  }

  private async startOne(def: AnyPlugin, makeContext: ContextFactory): Promise<void> {
    const record = this.records.get(def.name) as PluginRecord;
    const abort = new AbortController();
    const { ctx, dispose } = makeContext(def, abort.signal);
    const t0 = performance.now();
    try {
      const running = await withTimeout(
        Promise.resolve().then(() => def.start(ctx)),
        this.startTimeoutMs,
        `plugin ${def.name} start`,
      );
      Object.assign(record, { status: 'running', running, abort, dispose, error: undefined });
      this.started.push(def.name);
      this.log.info({ plugin: def.name, ms: Math.round(performance.now() - t0) }, 'plugin started');
    } catch (err) {
      abort.abort();
      await dispose().catch(() => {});
      this.fail(def, (err as Error).message ?? String(err));
    }
  }

  private fail(def: AnyPlugin, reason: string): void {
    const record = this.records.get(def.name) as PluginRecord;
    record.status = 'failed';
    record.error = reason;
    if (this.settings(def.name).required) {
      throw new RequiredPluginError(`required plugin ${def.name} failed to start: ${reason}`);
    }
    this.log.error({ plugin: def.name, reason }, 'plugin disabled: it failed to start');
  }

  private set(name: string, status: PluginStatus): void {
    const r = this.records.get(name);
    if (r) r.status = status;
  }

  /** Stops running plugins in reverse start order; each stop is bounded. */
  async stopAll(timeoutMs: number): Promise<void> {
    for (const name of [...this.started].reverse()) {
      const r = this.records.get(name);
      if (r?.status !== 'running') continue;
      r.abort?.abort();
      try {
        await withTimeout(
          Promise.resolve().then(() => r.running?.stop()),
          timeoutMs,
          `plugin ${name} stop`,
        );
      } catch (err) {
        this.log.error({ plugin: name, err }, 'plugin stop failed');
      }
      await r
        .dispose?.()
        .catch((err: unknown) => this.log.error({ plugin: name, err }, 'plugin cleanup failed'));
      r.status = 'stopped';
      delete r.running;
    }
    this.started = [];
  }

  health(): Array<{
    name: string;
    version: string;
    status: PluginStatus;
    health?: PluginHealth;
    error?: string;
  }> {
    return [...this.records.values()].map((r) => {
      let health: PluginHealth | undefined;
      if (r.status === 'running') {
        try {
          health = r.running?.health?.() ?? { status: 'ok' };
        } catch (err) {
          health = { status: 'down', detail: (err as Error).message };
        }
      }
      return {
        name: r.def.name,
        version: r.def.version,
        status: r.status,
        ...(health ? { health } : {}),
        ...(r.error ? { error: r.error } : {}),
      };
    });
  }

  isRequired(name: string): boolean {
    return this.settings(name).required;
  }
}
