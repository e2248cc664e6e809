import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import Koa from 'koa';
import type { Logger } from 'pino';
import { Availability, alwaysServed, CountedRequest, unavailable } from './availability.ts';
import { type ObserveRequest, serveDirect } from './direct.ts';
import { HttpError } from './errors.ts';
import { frame } from './middleware/frame.ts';
import { allowedMethods } from './router.ts';
import type { TlsMaterial } from './tls.ts';
import type { DirectRoute, HearthMiddleware, HearthRouter, ListenerInfo, RouterOptions } from './types.ts';

export type { ObserveRequest } from './direct.ts';

/** A plugin's router as mounted: `paths` (prefixes) let requests elsewhere skip it without matching. */
export interface Mount {
  owner: string;
  router: HearthRouter;
  paths: readonly string[] | null;
  errorBody: RouterOptions['errorBody'];
  routes: HearthMiddleware;
}

export interface RouteInfo {
  owner: string;
  methods: string[];
  path: string;
}

/** `/site` serves `/site` and `/site/...`, not `/sites`. */
const under = (path: string, prefix: string): boolean =>
  path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

/** A direct route with one `:name` segment: the path is `head`, the value, then `tail`. */
interface ParamDirect {
  owner: string;
  route: DirectRoute;
  key: string;
  head: string;
  name: string;
  tail: string;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The parameter's value when `path` is the route's, else null. A value that is empty, spans segments or
 * carries a `%` is not taken: Koa's router decodes it, so Koa answers it.
 */
function paramOf(d: ParamDirect, method: string | undefined, path: string): string | null {
  if (method !== d.route.method || path.length <= d.head.length + d.tail.length) return null;
  if (!path.startsWith(d.head) || !path.endsWith(d.tail)) return null;
  const value = path.slice(d.head.length, path.length - d.tail.length);
  return value.includes('/') || value.includes('%') ? null : value;
}

/** A loop rather than `some`: this runs for every mount on every request, and a closure each time adds up. */
function serves(m: Mount, path: string): boolean {
  if (m.paths === null) return true;
  for (const p of m.paths) if (under(path, p)) return true;
  return false;
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
  private bound: ListenerInfo | null = null;
  private readonly availability: Availability;
  private readonly guarded: boolean;

  constructor(
    name: string,
    log: Logger,
    opts: {
      guard?: HearthMiddleware | undefined;
      tls?: TlsMaterial | null;
      scrub?: (text: string) => string;
      observe?: ObserveRequest;
      /** The hub's phase (shared by every listener); a new one says `ready` (a listener on its own). */
      availability?: Availability;
      /** Config `http.bodyLimit` in bytes, for direct routes that read a body (default 1 MiB). */
      bodyLimit?: number;
    } = {},
  ) {
    const { guard, tls } = opts;
    this.guarded = guard !== undefined;
    const scrub = opts.scrub ?? ((t: string) => t);
    this.name = name;
    this.availability = opts.availability ?? Object.assign(new Availability(), { phase: 'ready' as const });
    const app = new Koa();
    app.proxy = false;
    // Errors are answered by frame(); Koa's own handler would print them to stderr.
    app.silent = true;
    app.use(frame(log, opts.observe));
    if (guard) app.use(guard);
    app.use(async (ctx, next) => {
      const phase = this.availability.phase;
      // Restoring or stopping: nothing but the probes may reach a router (a write now would be dropped).
      if ((phase === 'restoring' || phase === 'stopping') && !alwaysServed.has(ctx.path)) {
        this.useShapeOf(ctx.path, ctx.state);
        throw unavailable(phase);
      }
      // Counted, so a restore can wait for the requests already inside to finish.
      const counted = new CountedRequest(this.availability, ctx.state);
      try {
        await this.dispatch(ctx, ctx.path, next, 0);
      } finally {
        counted.leave();
      }
    });
    app.use((ctx) => {
      const mine = this.useShapeOf(ctx.path, ctx.state);
      // The path may carry a secret (a site key); the caller gets it back scrubbed like a log line.
      const shown = scrub(ctx.path);
      const allow = allowedMethods(
        mine.map((m) => m.router),
        ctx.path,
      );
      if (allow.length > 0) {
        throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${shown}`, {
          headers: { Allow: allow.join(', ') },
        });
      }
      // Before the hub is ready the path may belong to a plugin that has not started yet.
      const phase = this.availability.phase;
      if (phase !== 'ready') throw unavailable(phase);
      throw new HttpError(404, 'not_found', `No route for ${ctx.method} ${shown}`);
    });
    this.scheme = tls ? 'https' : 'http';
    const koa = app.callback();
    const env = { log, availability: this.availability, observe: opts.observe };
    const bodyLimit = opts.bodyLimit ?? 1024 * 1024;
    // Direct routes first (a map lookup, then the few with a parameter), only when the hub is ready;
    // everything else is Koa's.
    const serve = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if ((this.direct.size > 0 || this.directParams.length > 0) && this.availability.phase === 'ready') {
        const url = req.url ?? '';
        const q = url.indexOf('?');
        const path = q < 0 ? url : url.slice(0, q);
        const query = q < 0 ? '' : url.slice(q + 1);
        const exact = this.direct.get(`${req.method} ${path}`);
        if (exact && (!exact.route.accepts || exact.route.accepts(req, bodyLimit)))
          return void serveDirect(exact.route, req, res, path, NO_PARAMS, query, env);
        for (const d of this.directParams) {
          const value = paramOf(d, req.method, path);
          if (value !== null && (!d.route.accepts || d.route.accepts(req, bodyLimit))) {
            return void serveDirect(d.route, req, res, path, { [d.name]: value }, query, env);
          }
        }
      }
      return koa(req, res);
    };
    this.server = tls
      ? https.createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, serve)
      : http.createServer(serve);
    // Slow-loris bounds; keep-alive a little above common proxies' idle timeouts.
    this.server.headersTimeout = 20_000;
    this.server.requestTimeout = 60_000;
    this.server.keepAliveTimeout = 65_000;
  }

  /** Answers errors on `path` in the shape of the router that owns it (spec shapes); returns the mounts serving it. */
  private useShapeOf(path: string, state: Record<string, unknown>): Mount[] {
    const mine = this.mounts.filter((m) => serves(m, path));
    const shape = mine.find((m) => m.paths !== null && m.errorBody)?.errorBody;
    if (shape) state.errorBody = shape;
    return mine;
  }

  mount(
    owner: string,
    router: HearthRouter,
    opts: Pick<RouterOptions, 'paths' | 'prefix' | 'errorBody'> = {},
  ): void {
    const paths = opts.paths ?? (opts.prefix ? [opts.prefix] : null);
    this.mounts.push({
      owner,
      router,
      paths,
      errorBody: opts.errorBody,
      routes: router.routes() as HearthMiddleware,
    });
  }

  /** Direct routes by `METHOD /path` (see DirectRoute). */
  private readonly direct = new Map<string, { owner: string; route: DirectRoute }>();
  /** Direct routes with a `:name` segment, tried in order after the exact ones. */
  private readonly directParams: ParamDirect[] = [];

  /**
   * Adds a direct route. Refused on a guarded listener (the guard is Koa middleware it would skip) and for
   * a method and path an earlier mount answers: the direct route must answer what Koa would have routed to
   * its owner.
   */
  addDirect(owner: string, route: DirectRoute): void {
    const key = `${route.method} ${route.path}`;
    if (this.guarded) throw new Error(`listener "${this.name}" is guarded: no direct routes`);
    if (this.direct.has(key) || this.directParams.some((d) => d.key === key))
      throw new Error(`direct route ${key} exists`);
    const earlier = this.mounts.find(
      (m) => m.owner !== owner && m.router.match(route.path, route.method).route,
    );
    if (earlier) throw new Error(`${key} is routed to ${earlier.owner} already`);
    const param = /^([^:]*\/):([A-Za-z_][A-Za-z0-9_]*)((?:\/[^:]*)?)$/.exec(route.path);
    if (param) {
      const [, head = '', name = '', tail = ''] = param;
      this.directParams.push({ owner, route, key, head, name, tail });
    } else if (route.path.includes(':')) {
      throw new Error(`direct route ${key}: at most one :name segment`);
    } else this.direct.set(key, { owner, route });
  }

  /** Every route mounted here (method, path as @koa/router matches it, owner), for tools that probe them all. */
  routes(): RouteInfo[] {
    return this.mounts.flatMap((m) =>
      m.router.stack
        .filter((layer) => layer.methods.length > 0)
        .map((layer) => ({ owner: m.owner, methods: [...layer.methods], path: String(layer.path) })),
    );
  }

  unmount(owner: string): void {
    for (const [key, d] of this.direct) if (d.owner === owner) this.direct.delete(key);
    for (let i = this.directParams.length - 1; i >= 0; i--)
      if (this.directParams[i]?.owner === owner) this.directParams.splice(i, 1);
    for (let i = this.mounts.length - 1; i >= 0; i--)
      if (this.mounts[i]?.owner === owner) this.mounts.splice(i, 1);
  }

  /**
   * Runs the mounted routers in order, skipping those whose paths exclude the request. Errors thrown while
   * a router has the request are answered in its `errorBody` shape; a request it passes on loses that shape.
   */
  private dispatch(
    ctx: Parameters<HearthMiddleware>[0],
    path: string,
    next: () => Promise<unknown>,
    from: number,
  ): Promise<unknown> {
    for (let i = from; i < this.mounts.length; i++) {
      const m = this.mounts[i] as Mount;
      if (!serves(m, path)) continue;
      const outer: unknown = ctx.state.errorBody;
      if (m.errorBody) ctx.state.errorBody = m.errorBody;
      return Promise.resolve(
        m.routes(ctx, () => {
          ctx.state.errorBody = outer;
          return this.dispatch(ctx, path, next, i + 1);
        }),
      );
    }
    return next();
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
