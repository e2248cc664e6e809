import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import Koa from 'koa';
import compose from 'koa-compose';
import type { Logger } from 'pino';
import { HttpError } from './errors.ts';
import { accessLog, requestId, securityHeaders } from './middleware/basics.ts';
import { errorHandler } from './middleware/errors.ts';
import { allowedMethods } from './router.ts';
import type { TlsMaterial } from './tls.ts';
import type { HearthMiddleware, HearthRouter, ListenerInfo } from './types.ts';

interface Mount {
  owner: string;
  router: HearthRouter;
}

/**
 * One named HTTP listener: a Koa app whose routes are the routers plugins mount on it. Mounts come and go
 * with their plugins, so a disabled plugin leaves no routes behind.
 */
export class Listener {
  readonly name: string;
  readonly server: http.Server | https.Server;
  private readonly scheme: 'http' | 'https';
  private readonly mounts: Mount[] = [];
  private chain: HearthMiddleware | null = null;
  private bound: ListenerInfo | null = null;

  constructor(name: string, log: Logger, guard?: HearthMiddleware, tls?: TlsMaterial | null) {
    this.name = name;
    const app = new Koa();
    app.proxy = false;
    // Errors are answered by errorHandler; Koa's own handler would print them to stderr.
    app.silent = true;
    app.use(requestId);
    app.use(accessLog(log));
    app.use(securityHeaders);
    app.use(errorHandler(log));
    if (guard) app.use(guard);
    app.use((ctx, next) => this.dispatch()(ctx, next));
    app.use((ctx) => {
      const allow = allowedMethods(
        this.mounts.map((m) => m.router),
        ctx.path,
      );
      if (allow.length > 0) {
        throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`, {
          headers: { Allow: allow.join(', ') },
        });
      }
      throw new HttpError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
    });
    this.scheme = tls ? 'https' : 'http';
    this.server = tls
      ? https.createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, app.callback())
      : http.createServer(app.callback());
    // Slow-loris bounds; keep-alive a little above common proxies' idle timeouts.
    this.server.headersTimeout = 20_000;
    this.server.requestTimeout = 60_000;
    this.server.keepAliveTimeout = 65_000;
  }

  mount(owner: string, router: HearthRouter): void {
    this.mounts.push({ owner, router });
    this.chain = null;
  }

  unmount(owner: string): void {
    for (let i = this.mounts.length - 1; i >= 0; i--)
      if (this.mounts[i]?.owner === owner) this.mounts.splice(i, 1);
    this.chain = null;
  }

  private dispatch(): HearthMiddleware {
    this.chain ??= compose(this.mounts.map((m) => m.router.routes())) as HearthMiddleware;
    return this.chain;
  }

  async listen(port: number, host: string): Promise<ListenerInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const addr = this.server.address() as AddressInfo;
    const shownHost = host === '0.0.0.0' || host === '::' ? lanAddress() : host;
    const urlHost = shownHost.includes(':') ? `[${shownHost}]` : shownHost;
    this.bound = { name: this.name, port: addr.port, url: `${this.scheme}://${urlHost}:${addr.port}` };
    return this.bound;
  }

  info(): ListenerInfo | null {
    return this.bound;
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    // In-flight requests get a moment; then every socket goes, so stop stays bounded.
    const timer = setTimeout(() => this.server.closeAllConnections(), 1000);
    await closed;
    clearTimeout(timer);
  }
}

/** The address a phone on the LAN would use: the first non-internal IPv4 address. */
function lanAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
