import type { Logger } from 'pino';
import { HearthError } from '../errors.ts';
import type { Histogram } from '../metrics/types.ts';
import { Availability } from './availability.ts';
import { HttpError } from './errors.ts';
import { Listener, type ObserveRequest, type RouteInfo } from './listener.ts';
import { createRouter } from './router.ts';
import type { HearthMiddleware, HttpApi, ListenerInfo } from './types.ts';

/**
 * One latency series per listener, route template, method and status class. The route is the router's
 * template (`/api/site/:sitekey/light/state`), never the path itself: a path can carry a site key, and
 * unmatched paths would make the label set unbounded.
 */
function observeRequest(latency: Histogram, listener: string): ObserveRequest {
  // route → method → status class → the series: its label key is built once, not on every request.
  const series = new Map<string, Map<string, Array<((seconds: number) => void) | undefined>>>();
  return (matched, method, status, seconds) => {
    const route = typeof matched === 'string' ? matched : 'unmatched';
    const cls = Math.floor(status / 100);
    let byMethod = series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      series.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (!byClass) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    let record = byClass[cls];
    if (!record) {
      record = latency.series({ listener, route, method, code: `${cls}xx` });
      byClass[cls] = record;
    }
    record(seconds);
  };
}

/** Config `http.bodyLimit` (`512kb`, `1mb`, schema `^[0-9]+(b|kb|mb)$`) in bytes, 1024 to a kb as koa-body counts. */
export function limitBytes(limit: string): number {
  const m = /^([0-9]+)(b|kb|mb)$/i.exec(limit.trim());
  if (!m) return 1024 * 1024;
  const unit = m[2]?.toLowerCase();
  return Number(m[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}

/** All HTTP listeners of the hub, and each plugin's view of them. */
export class HttpService {
  private readonly listeners = new Map<string, Listener>();
  private readonly owners = new Map<string, string>();
  /** The hub's phase, shared by every listener (plugin listeners included). */
  readonly availability = new Availability();

  constructor(
    private readonly log: Logger,
    private readonly defaults: {
      host: string;
      bodyLimit: string;
      scrub?: (text: string) => string;
      /** The box's own names (hostname, .local, loopback, LAN addresses, configured extras). */
      names?: () => string[];
      /** Configured public URLs by listener name. */
      publicUrls?: Record<string, string | undefined>;
    },
    private readonly latency?: Histogram,
  ) {}

  /** The certificate every listener serves once set (before any listener is added); null = plain HTTP. */
  tls: import('./tls.ts').TlsMaterial | null = null;

  /** Creates (but does not bind) a listener; `guard` runs before any route. */
  add(name: string, owner: string, guard?: HearthMiddleware): Listener {
    if (this.listeners.has(name))
      throw new HearthError('listener_exists', `listener "${name}" already exists`);
    const listener = new Listener(name, this.log.child({ listener: name }), {
      guard,
      tls: this.tls,
      availability: this.availability,
      bodyLimit: limitBytes(this.defaults.bodyLimit),
      ...(this.defaults.scrub ? { scrub: this.defaults.scrub } : {}),
      ...(this.latency ? { observe: observeRequest(this.latency, name) } : {}),
    });
    this.listeners.set(name, listener);
    this.owners.set(name, owner);
    return listener;
  }

  get(name: string): Listener {
    const l = this.listeners.get(name);
    if (!l) throw new HearthError('listener_unknown', `no listener named "${name}"`);
    return l;
  }

  infos(): ListenerInfo[] {
    return [...this.listeners.values()].flatMap((l) => l.info() ?? []);
  }

  /** The box's names, read again at most every 10 s (a DHCP lease can change the LAN address). */
  private names: { at: number; list: string[] } | null = null;

  /** See HttpApi.origins. */
  origins(name: string): string[] {
    const configured = this.defaults.publicUrls?.[name];
    if (configured) return [new URL(configured).origin];
    const info = this.get(name).info();
    if (!info) throw new HearthError('listener_not_bound', `listener "${name}" is not bound`);
    if (!this.names || Date.now() - this.names.at > 10_000)
      this.names = { at: Date.now(), list: this.defaults.names?.() ?? [] };
    const bound = new URL(info.url);
    const own = this.names.list.flatMap((n) => {
      try {
        return [new URL(`${bound.protocol}//${n.includes(':') ? `[${n}]` : n}:${info.port}`).origin];
      } catch {
        return []; // a configured extra name that is no host
      }
    });
    return [...new Set([bound.origin, ...own])];
  }

  /** Every listener's routes, by listener name. */
  routes(): Record<string, RouteInfo[]> {
    return Object.fromEntries([...this.listeners].map(([name, l]) => [name, l.routes()]));
  }

  forOwner(owner: string): HttpApi & { dispose(): Promise<void> } {
    return {
      router: (listenerName, opts = {}) => {
        const listener = this.get(listenerName);
        if (listenerName === 'admin' && opts.prefix !== undefined && !opts.prefix.startsWith('/admin')) {
          throw new HearthError(
            'admin_route_outside_admin',
            'routes on the admin listener live under /admin',
          );
        }
        const router = createRouter(opts, this.defaults.bodyLimit);
        listener.mount(owner, router, opts);
        return router;
      },
      direct: (listenerName, route) => this.get(listenerName).addDirect(owner, route),
      listen: async (name, { port, host }) => {
        const listener = this.add(name, owner);
        return listener.listen(port, host ?? this.defaults.host);
      },
      listeners: () => this.infos(),
      origins: (name) => this.origins(name),
      url: (name) => {
        const info = this.get(name).info();
        if (!info) throw new HearthError('listener_not_bound', `listener "${name}" is not bound`);
        return info.url;
      },
      dispose: async () => {
        for (const l of this.listeners.values()) l.unmount(owner);
        // Listeners a plugin opened close with it.
        for (const [name, o] of this.owners) {
          if (o !== owner) continue;
          await this.listeners.get(name)?.close();
          this.listeners.delete(name);
          this.owners.delete(name);
        }
      },
    };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.listeners.values()].map((l) => l.close()));
  }
}

/** Only `/admin/...` (and `/metrics`, checked by its own route, and `GET /`) exist on the admin listener. */
export function adminGuard(verify: (presented: string | undefined) => boolean): HearthMiddleware {
  return async (ctx, next) => {
    // The metrics route checks its own credentials; the operator console (/admin/ui) its session cookie.
    // `/` leads a browser to the console (its redirect, when the console runs).
    if (ctx.path === '/metrics' || ctx.path === '/admin/ui' || ctx.path.startsWith('/admin/ui/'))
      return next();
    if (ctx.path === '/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) return next();
    if (!ctx.path.startsWith('/admin/') && ctx.path !== '/admin') {
      throw new HttpError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
    }
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!verify(match?.[1])) {
      throw new HttpError(401, 'invalid_admin_key', 'The admin key is missing or wrong', {
        headers: { 'WWW-Authenticate': 'Bearer realm="hearth-admin"' },
        body: { error: 'invalid_admin_key', message: 'The admin key is missing or wrong' },
      });
    }
    await next();
  };
}
