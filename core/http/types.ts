import type { IncomingMessage, ServerResponse } from 'node:http';
import type Router from '@koa/router';
import type { DefaultContext, DefaultState, Middleware } from 'koa';

export type HearthRouter = Router<DefaultState, DefaultContext>;
export type HearthMiddleware = Middleware<DefaultState, DefaultContext>;

export interface RouterOptions {
  /** Path prefix of the router (e.g. `/api/site`). */
  prefix?: string;
  /**
   * Path prefixes this router serves (defaults to `[prefix]`, or every path). Requests elsewhere skip it
   * without route matching, and unmatched requests inside them (404, 405) get this router's `errorBody`.
   */
  paths?: string[];
  /**
   * Body parsing for this router's routes: JSON, urlencoded and text, limited by `limit`
   * (default: config `http.bodyLimit`). `false` leaves the raw stream to the plugin.
   */
  body?: false | { limit?: string; form?: boolean; text?: boolean };
  /**
   * Shapes the JSON body of every error thrown on this router's routes. The default body is
   * `{ "error": code, "message": message }`. The lighting spec wants `{ message }`, OAuth wants
   * `{ error, error_description }`.
   */
  errorBody?: (err: { status: number; code: string; message: string }) => Record<string, unknown>;
}

/** A request as a direct route sees it: node's own objects, no Koa context. */
export interface DirectRequest {
  req: IncomingMessage;
  /** For response headers (`setHeader`) and to see the client go; the listener writes the answer. */
  res: ServerResponse;
  /** The request's path, without the query. */
  path: string;
  /** The value of the route's one `:name` segment, by name (as sent: a value with `%` goes to Koa). */
  params: Readonly<Record<string, string>>;
  /** The query without its `?` ('' when none). */
  querystring: string;
}

/**
 * One exact method and path answered before the listener's Koa stack: for a hot path whose budget the
 * generic layers (context, middleware chain, routing) would take most of. The listener still gives it the
 * request id, in-flight counting, error answers in `errorBody`'s shape, `nosniff`, the access log and the
 * latency metric. Requests that differ in any way (another method, case or trailing slash, a hub that is
 * not ready) go through Koa, so the same handler should also be mounted as a normal route.
 */
export interface DirectRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * An exact path, or one with a single `:name` segment (`/api/site/:key/light/state`) matching one
   * non-empty segment without `%` (an encoded value is decoded by Koa's router, so it goes there).
   */
  path: string;
  /** The JSON body of a 200 answer; throw an HttpError for anything else, as in a route. */
  handle(request: DirectRequest): Promise<unknown>;
  /**
   * Whether to answer this request here, from its headers (before any body byte is read); false leaves
   * it to Koa (e.g. a body the route does not parse itself). `bodyLimit`: config `http.bodyLimit` in bytes.
   */
  accepts?(req: IncomingMessage, bodyLimit: number): boolean;
  errorBody?: RouterOptions['errorBody'];
}

export interface ListenerInfo {
  name: string;
  /** `http://host:port` as bound (port 0 resolved). */
  url: string;
  port: number;
}

export interface HttpApi {
  /**
   * A router mounted on a named listener: `main` (site API, UI, translation), `admin` (guarded by the
   * admin key; only `/admin/...` paths are accepted there), or a listener this plugin asked for.
   * Routes disappear when the plugin stops.
   */
  router(listener: string, opts?: RouterOptions): HearthRouter;
  /** Serves `route` on a listener ahead of its Koa stack (see DirectRoute); it goes when the plugin stops. */
  direct(listener: string, route: DirectRoute): void;
  /** Opens a listener of this plugin's own (e.g. the authorization server on :9000). */
  listen(name: string, opts: { port: number; host?: string }): Promise<ListenerInfo>;
  /** Bound listeners by name. */
  listeners(): ListenerInfo[];
  /** The URL of a bound listener. */
  url(listener: string): string;
  /**
   * The origins clients may name this listener by (for DPoP `htu`, RFC 9449 §4.3): its configured
   * `publicUrl` only, else each of the box's own names at the bound scheme and port. Never derived from a
   * request's Host header.
   */
  origins(listener: string): string[];
}
