import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pluginsDir } from '../../core/cli/boot.ts';
import { merge, readConfigSources, validateConfig } from '../../core/config/load.ts';
import { Hub, type HubInfo } from '../../core/hub.ts';
import { type AnyPlugin, discoverPlugins } from '../../core/plugin/discover.ts';

export interface TestHubOptions {
  /** Folder names under plugins/ to load (default: none). */
  plugins?: string[];
  /** Plugin objects defined by the test itself. */
  extraPlugins?: AnyPlugin[];
  /** Config overrides (same shape as the config file). */
  config?: Record<string, unknown>;
  /** Reuse a data dir (default: a new temp dir, removed by stop()). */
  dataDir?: string;
  /** The admin key (default: a random one, as HEARTH_ADMIN_KEY); null: the hub generates its own, as on a fresh install. */
  adminKey?: string | null;
}

export interface TestHub {
  /** Main listener base URL (site API, UI, translation). */
  url: string;
  adminUrl: string;
  adminKey: string;
  /** mqtt://127.0.0.1:<port> of the embedded broker. */
  mqttUrl: string;
  listenerUrl(name: string): string;
  dataDir: string;
  hub: Hub;
  info: HubInfo;
  /** Lines the hub printed on the operator console. */
  printed: string[];
  /** Every log line, as parsed JSON. */
  logs: Array<Record<string, unknown>>;
  /** Calls the admin API with the admin key. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Stops the hub; the temp data dir is removed unless `keepData`. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
  /** Stops and starts a new hub on the same data dir and config (new ports). */
  restart(): Promise<TestHub>;
}

const cache = new Map<string, AnyPlugin>();

async function loadPlugins(names: string[]): Promise<AnyPlugin[]> {
  if (names.some((n) => !cache.has(n)))
    for (const p of await discoverPlugins(pluginsDir)) cache.set(p.name, p);
  return names.map((n) => {
    const p = cache.get(n);
    if (!p) throw new Error(`no plugin named ${n} under plugins/`);
    return p;
  });
}

/** Boots the real core with real plugins on port 0 in a temp data dir. */
export async function startTestHub(opts: TestHubOptions = {}): Promise<TestHub> {
  const plugins = [...(await loadPlugins(opts.plugins ?? [])), ...(opts.extraPlugins ?? [])];
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'hearth-test-'));
  const presetKey =
    opts.adminKey === null ? undefined : (opts.adminKey ?? `test-admin-${randomBytes(12).toString('hex')}`);
  const portZero: Record<string, unknown> = {};
  for (const p of plugins) {
    const props = (p.configSchema.properties ?? {}) as Record<string, unknown>;
    if ('port' in props) portZero[p.name] = { port: 0 };
    // Tests stay on loopback: the console's mDNS announcement would join the LAN's multicast group.
    if ('announce' in props) portZero[p.name] = { announce: { enabled: false } };
  }
  const base = {
    dataDir,
    host: '127.0.0.1',
    log: { level: process.env.HEARTH_TEST_LOG ?? 'debug' },
    http: { main: { port: 0 }, admin: { port: 0 } },
    mqtt: { port: 0 },
    store: { coalesceMs: 20 },
    lifecycle: { shutdownGraceMs: 3000 },
    plugins: portZero,
  };
  const raw = readConfigSources({ env: {}, overrides: merge(base, opts.config ?? {}) });
  const config = validateConfig(raw, plugins);
  const logs: Array<Record<string, unknown>> = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ raw: line });
      }
    }
    if (process.env.HEARTH_TEST_LOG) process.stderr.write(chunk);
  });
  const printed: string[] = [];
  const hub = new Hub({
    config,
    plugins,
    adminKey: presetKey,
    logStream: stream,
    print: (l) => printed.push(l),
  });
  const info = await hub.start();
  const adminKey = presetKey ?? (info.generatedAdminKey as string);
  const urls = info.urls;
  const self: TestHub = {
    url: urls.main as string,
    adminUrl: urls.admin as string,
    adminKey,
    mqttUrl: `mqtt://127.0.0.1:${info.mqttPort}`,
    listenerUrl: (name) => {
      const u = urls[name];
      if (!u) throw new Error(`no listener ${name}`);
      return u;
    },
    dataDir,
    hub,
    info,
    printed,
    logs,
    async admin(method, p, body) {
      const url = new URL(p, self.adminUrl);
      const headers: Record<string, string> = {
        authorization: `Bearer ${adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const { status, text } =
        url.protocol === 'https:'
          ? await httpsRequest(url, method, headers, payload, hubCertificate(dataDir, config.http.tls))
          : await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) }).then(
              async (res) => ({ status: res.status, text: await res.text() }),
            );
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status, body: parsed };
    },
    async stop({ keepData = false } = {}) {
      await hub.stop();
      if (ownDir && !keepData) rmSync(dataDir, { recursive: true, force: true });
    },
    async restart() {
      await hub.stop();
      const next = await startTestHub({ ...opts, dataDir, adminKey });
      // The restarted hub owns the temp dir now.
      const stopNext = next.stop.bind(next);
      next.stop = async ({ keepData = false } = {}) => {
        await stopNext({ keepData: true });
        if (ownDir && !keepData) rmSync(dataDir, { recursive: true, force: true });
      };
      return next;
    },
  };
  return self;
}

/** The certificate an HTTPS hub serves: the configured file, or the one it generated in its data dir. */
function hubCertificate(dataDir: string, tls: { certFile?: string | undefined }): string {
  return readFileSync(tls.certFile ?? path.join(dataDir, 'core', 'tls-cert.pem'), 'utf8');
}

/** One HTTPS request that trusts only `ca` (fetch cannot be given a CA without undici's own Agent). */
function httpsRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  ca: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}
