import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { recoverStaging } from './admin/backup.ts';
import { mountBackup } from './admin/backup-routes.ts';
import { hashSecret, newSecret, secretMatches } from './admin/key.ts';
import { AdminKey } from './admin/key-store.ts';
import { basicAuthChecker, mountCoreAdmin } from './admin/routes.ts';
import { EventBus } from './bus/bus.ts';
import type { HearthConfig } from './config/types.ts';
import { contextFactory, Notices } from './context.ts';
import { HearthError } from './errors.ts';
import { unavailable } from './http/availability.ts';
import { HEALTH_PATHS, mountHealth, storageStatus } from './http/health.ts';
import type { RouteInfo } from './http/listener.ts';
import { createRouter } from './http/router.ts';
import { adminGuard, HttpService } from './http/service.ts';
import { loadTls, localNames } from './http/tls.ts';
import { DataDirLock } from './lifecycle/lock.ts';
import { RunFile } from './lifecycle/run-file.ts';
import { SdNotify } from './lifecycle/sd-notify.ts';
import { createLogger } from './log/logger.ts';
import { registerLogMetrics } from './log/metrics.ts';
import type { Redactor } from './log/redactor.ts';
import type { LogTail } from './log/tail.ts';
import { registerProcessMetrics } from './metrics/process.ts';
import { MetricsRegistry } from './metrics/registry.ts';
import { createBroker } from './mqtt/broker.ts';
import type { BrokerService } from './mqtt/types.ts';
import type { AnyPlugin } from './plugin/discover.ts';
import { PluginManager } from './plugin/manager.ts';
import { SecretVault } from './secrets/vault.ts';
import { createStoreRoot } from './store/root.ts';
import type { StoreRoot } from './store/types.ts';
import { VERSION } from './version.ts';
import { WsHub } from './ws/hub.ts';

export interface HubOptions {
  config: HearthConfig;
  plugins: AnyPlugin[];
  /** HEARTH_ADMIN_KEY: sets the admin key instead of generating one. */
  adminKey?: string | undefined;
  /** Where log lines go (stdout by default). */
  logStream?: Writable;
  /** Operator console (stdout by default): the banner and first-run secrets, never the log. */
  print?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** `secrets`: print only first-run secrets and plugin lines, not the URLs (a temporary CLI hub). */
  banner?: 'full' | 'secrets';
}

export interface HubInfo {
  urls: Record<string, string>;
  mqttPort: number;
  /** Set only when this start generated the admin key. */
  generatedAdminKey: string | null;
  /** The local control token (also written to `<dataDir>/run/control.json`). */
  controlToken: string;
}

/** The appliance: core services plus plugins, started in order and stopped in reverse. */
export class Hub {
  readonly config: HearthConfig;
  readonly dataDir: string;
  readonly log: Logger;
  readonly redactor: Redactor;
  readonly bus: EventBus;
  readonly metrics = new MetricsRegistry();
  private stopProcessMetrics: () => void = () => {};
  private readonly storeWrites = this.metrics.counter(
    'hearth_store_writes',
    'Durable writes of each data file',
  );
  private readonly http: HttpService;
  private readonly notices: Notices;
  private readonly lock: DataDirLock;
  private readonly runFile: RunFile;
  private readonly sd: SdNotify;
  private readonly print: (line: string) => void;
  private store: StoreRoot | null = null;
  private vault: SecretVault | null = null;
  private broker: BrokerService | null = null;
  private ws: WsHub | null = null;
  private manager: PluginManager | null = null;
  private adminKey: AdminKey | null = null;
  private controlHash: string | undefined;
  private controlToken = '';
  /** The last opening of the store generated the admin key: a new data directory (not a restore). */
  private newHub = false;
  private readonly rootLog: Logger;
  private readonly logTail: LogTail;
  private startedAt = 0;
  private state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(private readonly opts: HubOptions) {
    this.config = opts.config;
    this.dataDir = path.resolve(opts.config.dataDir);
    const { logger, redactor, output, tail } = createLogger({
      level: opts.config.log.level,
      format: opts.config.log.format,
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    });
    registerLogMetrics(this.metrics, output);
    this.rootLog = logger;
    this.log = logger.child({ name: 'core' });
    this.redactor = redactor;
    this.logTail = tail;
    this.bus = new EventBus(this.log);
    this.notices = new Notices(this.log);
    this.http = new HttpService(
      this.log,
      {
        host: opts.config.host,
        bodyLimit: opts.config.http.bodyLimit,
        scrub: (text) => redactor.scrub(text),
        names: () => localNames(opts.config.http.tls.hostnames),
        publicUrls: { main: opts.config.http.main.publicUrl, admin: opts.config.http.admin.publicUrl },
      },
      this.metrics.histogram(
        'hearth_http_request_duration_seconds',
        'Time from a request reaching its listener to its answer, by listener, route template, method and status class',
      ),
    );
    this.lock = new DataDirLock(this.dataDir);
    this.runFile = new RunFile(this.dataDir);
    this.sd = new SdNotify(opts.env ?? process.env);
    this.print = opts.print ?? ((line) => process.stdout.write(`${line}\n`));
  }

  get running(): boolean {
    return this.state === 'running';
  }

  get plugins(): PluginManager {
    if (!this.manager) throw new HearthError('hub_not_started', 'hub not started');
    return this.manager;
  }

  async start(): Promise<HubInfo> {
    if (this.state !== 'new') throw new HearthError('hub_state', `hub cannot start from state ${this.state}`);
    this.state = 'starting';
    const t0 = performance.now();
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    this.lock.acquire();
    try {
      return await this.boot(t0);
    } catch (err) {
      // The start's own error is the one to report; a failed save on the way down is logged by teardown.
      await this.teardown().catch(() => {});
      throw err;
    }
  }

  private async boot(t0: number): Promise<HubInfo> {
    const cfg = this.config;
    await recoverStaging(this.dataDir, this.log);
    const generated = await this.openStore();
    await this.openSecrets();
    const controlToken = newSecret();
    this.controlToken = controlToken;
    this.controlHash = hashSecret(controlToken);
    this.redactor.addValue(controlToken);
    if (this.opts.adminKey) this.redactor.addValue(this.opts.adminKey);

    this.http.tls = await loadTls(cfg.http.tls, path.join(this.dataDir, 'core'), this.log);
    const main = this.http.add('main', 'core');
    const adminListener = this.http.add('admin', 'core', adminGuard(this.verifyAdmin));
    const health = createRouter({}, cfg.http.bodyLimit);
    mountHealth(health, {
      plugins: () => this.manager,
      notices: () => this.notices.list(),
      phase: () => this.http.availability.phase,
      storage: () => this.store?.writeProblem ?? null,
    });
    // Mounted for its own paths only: every other request on main (the site API) skips it unmatched.
    main.mount('core', health, { paths: HEALTH_PATHS });
    const adminRouter = createRouter({}, cfg.http.bodyLimit);
    mountCoreAdmin(adminRouter, {
      status: () => this.status(),
      rotateKey: () => (this.adminKey as AdminKey).rotate(),
      metrics: this.metrics,
      logTail: this.logTail,
      metricsAuth: basicAuthChecker(cfg.metrics.username, () => cfg.metrics.password, this.verifyAdmin),
    });
    mountBackup(adminRouter, this);
    adminListener.mount('core', adminRouter);
    this.registerCoreMetrics();

    // MQTT clients are answered once the plugins (and their authenticate hooks) are up, or failed to start.
    let pluginsSettled = () => {};
    const clientsAfter = new Promise<void>((resolve) => {
      pluginsSettled = resolve;
    });
    this.broker = await createBroker({
      clientsAfter,
      enabled: cfg.mqtt.enabled,
      host: cfg.mqtt.host ?? cfg.host,
      port: cfg.mqtt.port,
      allowAnonymous: cfg.mqtt.allowAnonymous,
      limits: {
        maxPacketSize: cfg.mqtt.maxPacketSize,
        clientQueueBytes: cfg.mqtt.clientQueueBytes,
        connectTimeoutMs: cfg.mqtt.connectTimeoutMs,
        maxPendingConnections: cfg.mqtt.maxPendingConnections,
      },
      external: cfg.mqtt.external,
      log: this.rootLog.child({ name: 'mqtt' }),
    });
    if (cfg.mqtt.external?.password) this.redactor.addValue(cfg.mqtt.external.password);
    this.ws = new WsHub(main.server, this.rootLog.child({ name: 'ws' }), this.http.availability);
    const broker = this.broker;
    this.ws.add('core', {
      path: '/mqtt',
      // MQTT authenticates inside the protocol (CONNECT), like the TCP listener.
      authenticate: () => ({}),
      // One WebSocket message can carry a whole MQTT packet: the same limit as the TCP listener.
      maxPayload: cfg.mqtt.maxPacketSize,
      onConnection: (socket) => broker.handleWebSocket(socket.raw),
    });

    await main.listen(cfg.http.main.port, cfg.http.main.host ?? cfg.host);
    await adminListener.listen(cfg.http.admin.port, cfg.http.admin.host ?? cfg.host);
    const pluginLines = await this.startPlugins().finally(pluginsSettled);

    const urls = Object.fromEntries(this.http.infos().map((l) => [l.name, l.url]));
    this.runFile.write({ pid: process.pid, adminUrl: urls.admin as string, controlToken, version: VERSION });
    this.state = 'running';
    this.http.availability.phase = 'ready';
    this.startedAt = Date.now();
    this.bus.emit('core.ready', { urls });
    const ms = Math.round(performance.now() - t0);
    this.log.info({ ms, urls, mqttPort: this.broker.port }, 'hub ready');
    this.banner(urls, generated, pluginLines);
    await this.sd.ready(`ready in ${ms} ms`);
    this.sd.startWatchdog();
    return { urls, mqttPort: this.broker.port, generatedAdminKey: generated, controlToken };
  }

  /** Opens the secrets (creating the key on first start), or reads them again after a restore. */
  private async openSecrets(): Promise<void> {
    if (this.vault) return this.vault.reload();
    this.vault = await SecretVault.open({
      dataDir: this.dataDir,
      keyFile: this.config.secrets.keyFile,
      credentialsDir: process.env.CREDENTIALS_DIRECTORY,
      log: this.rootLog.child({ name: 'secrets' }),
      onValue: (value, lifetime) => this.redactor.addValue(value, lifetime),
      onProblem: (text) => this.notices.forOwner('core').set('secrets_unreadable', text),
    });
  }

  /** Opens the data files; returns the admin key when this call generated it. */
  private async openStore(): Promise<string | null> {
    this.store = await createStoreRoot({
      dataDir: this.dataDir,
      coalesceMs: this.config.store.coalesceMs,
      log: this.rootLog.child({ name: 'store' }),
      // SD cards wear by writes: the count per file is worth watching.
      onWrite: ({ file }) => this.storeWrites.inc({ file: path.basename(file) }),
      // One notice (logged once by Notices) while writes fail; gone with the first good write.
      onWriteProblem: (problem) => {
        this.notices.forOwner('core').set('storage', problem ? `${problem.reason} (${problem.code})` : null);
        if (!problem) this.log.info('data disk writable again; pending changes saved');
      },
    });
    const { admin, generated, warning } = await AdminKey.open(
      this.store.forOwner('core'),
      this.opts.adminKey,
      this.log,
    );
    this.adminKey = admin;
    this.newHub = generated !== null;
    // Shown in /ready and the admin status until HEARTH_ADMIN_KEY is removed or replaced.
    this.notices.forOwner('core').set('admin_key_env_ignored', warning);
    return generated;
  }

  /** The admin key, or this run's local control token (the CLI's credential). Both compares always run. */
  private readonly verifyAdmin = (presented: string | undefined): boolean => {
    const key = this.adminKey?.verify(presented) ?? false;
    const control = secretMatches(presented, this.controlHash);
    return key || control;
  };

  private async startPlugins(): Promise<string[]> {
    const cfg = this.config;
    const lines: string[] = [];
    this.manager = new PluginManager(
      this.opts.plugins,
      (name) => {
        const slice = cfg.plugins[name];
        return { enabled: slice?.enabled ?? true, required: slice?.required ?? false };
      },
      this.log,
      cfg.lifecycle.pluginStartTimeoutMs,
    );
    await this.manager.startAll(
      contextFactory({
        log: this.rootLog,
        redactor: this.redactor,
        store: () => this.storeRoot(),
        secrets: () => {
          if (!this.vault) throw new Error('hub not started');
          return this.vault;
        },
        bus: this.bus,
        http: this.http,
        ws: this.ws as WsHub,
        broker: this.broker as BrokerService,
        metrics: this.metrics,
        notices: this.notices,
        plugins: () => this.plugins,
        pluginConfig: (name) => cfg.plugins[name] ?? {},
        verifyAdminKey: this.verifyAdmin,
        newHub: this.newHub,
        runToken: () => this.controlToken,
        print: (line) => lines.push(line),
      }),
    );
    return lines;
  }

  private banner(urls: Record<string, string>, generated: string | null, pluginLines: string[]): void {
    if (this.opts.banner !== 'secrets') {
      this.print(`Hearth ${VERSION} is running (data: ${this.dataDir})`);
      for (const [name, url] of Object.entries(urls)) this.print(`  ${name.padEnd(6)} ${url}`);
      if (this.broker?.mode === 'embedded' && this.broker.port) {
        this.print(`  mqtt   mqtt://<this host>:${this.broker.port}`);
      }
    }
    if (generated) this.print(`Admin key (shown once; it is stored only as a hash): ${generated}`);
    for (const line of pluginLines) this.print(line);
  }

  private registerCoreMetrics(): void {
    this.stopProcessMetrics();
    this.stopProcessMetrics = registerProcessMetrics(this.metrics);
    this.metrics.gauge('hearth_uptime_seconds', 'Seconds since the hub became ready', () =>
      this.startedAt ? Math.round((Date.now() - this.startedAt) / 1000) : 0,
    );
    this.metrics.gauge('hearth_plugin_up', 'Whether each plugin runs (1) or not (0)', () =>
      (this.manager?.health() ?? []).map((p) => ({
        labels: { plugin: p.name },
        value: p.status === 'running' ? 1 : 0,
      })),
    );
  }

  status(): unknown {
    return {
      version: VERSION,
      state: this.state,
      dataDir: this.dataDir,
      uptime_s: this.startedAt ? Math.round((Date.now() - this.startedAt) / 1000) : 0,
      listeners: this.http.infos(),
      mqtt: { mode: this.broker?.mode, port: this.broker?.port },
      plugins: this.manager?.health() ?? [],
      storage: storageStatus(this.store?.writeProblem ?? null),
      notices: this.notices.list(),
    };
  }

  /** Every HTTP route of every listener, by listener name (the torture fuzzer probes them all). */
  routes(): Record<string, RouteInfo[]> {
    return this.http.routes();
  }

  storeRoot(): StoreRoot {
    if (!this.store) throw new Error('hub not started');
    return this.store;
  }

  /**
   * Replaces the data files: refuses new requests (503, Retry-After) and waits for those in flight, stops
   * every plugin (flushing their stores), lets `swap` rewrite the data directory, then opens the store
   * again and starts the plugins on the new data. `own` is how many in-flight requests are the caller's.
   */
  async reload(swap: () => Promise<void>, own = 0): Promise<void> {
    const availability = this.http.availability;
    if (availability.phase !== 'ready') throw unavailable(availability.phase);
    availability.phase = 'restoring';
    try {
      const grace = this.config.lifecycle.shutdownGraceMs;
      if (!(await availability.drain(own, grace)))
        this.log.warn('restore: requests still running after the grace period; their writes may fail');
      await this.plugins.stopAll(grace);
      await this.storeRoot().close();
      try {
        await swap();
      } finally {
        await this.openStore();
        await this.openSecrets();
        for (const line of await this.startPlugins()) this.print(line);
      }
    } finally {
      if (availability.phase === 'restoring') availability.phase = 'ready';
    }
  }

  async stop(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    this.http.availability.phase = 'stopping';
    this.bus.emit('core.stopping', {});
    await this.sd.stopping();
    try {
      await this.teardown();
    } finally {
      this.state = 'stopped';
    }
  }

  private async teardown(): Promise<void> {
    const grace = this.config.lifecycle.shutdownGraceMs;
    if (this.manager) await this.manager.stopAll(Math.max(500, grace - 1000));
    this.ws?.close();
    await this.broker?.stop().catch((err: unknown) => this.log.error({ err }, 'broker stop failed'));
    await this.http.closeAll();
    let saveFailed: Error | null = null;
    await this.store?.close().catch((err: unknown) => {
      saveFailed = err instanceof Error ? err : new Error(String(err));
      this.log.error(
        { err: saveFailed.message },
        'final save failed: changes since the last good write are lost',
      );
    });
    this.runFile.remove();
    this.lock.release();
    this.stopProcessMetrics();
    this.log.info(saveFailed ? 'hub stopped without saving everything' : 'hub stopped');
    await new Promise<void>((resolve) => this.log.flush(() => resolve()));
    // The exit code tells systemd (and the operator) that data was lost.
    if (saveFailed)
      throw new HearthError('hub_final_save_failed', `final save failed: ${(saveFailed as Error).message}`);
  }
}
