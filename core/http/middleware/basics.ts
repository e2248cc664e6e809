import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Logger } from 'pino';

const SANE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A sane incoming X-Request-Id (header value as received), or a new one. */
export function requestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
}

/** Echoes a sane incoming X-Request-Id or makes one; every access-log line carries it. */
export function assignRequestId(ctx: Context): void {
  // Node's own header object and setHeader: Koa's delegates add nothing here, on every request.
  const id = requestId(ctx.req.headers['x-request-id']);
  ctx.state.reqId = id;
  ctx.res.setHeader('X-Request-Id', id);
}

/** One line per request (debug level, or warn for a 5xx). The URL goes through the logger's redactor. */
export function logAccess(log: Logger, ctx: Context, startedAt: number): void {
  accessLine(log, ctx.state.reqId, ctx.method, ctx.url, ctx.status, startedAt);
}

/** The access-log line of `logAccess`, from the parts of a request (routes answered without Koa). */
export function accessLine(
  log: Logger,
  reqId: unknown,
  method: string | undefined,
  url: string | undefined,
  status: number,
  startedAt: number,
): void {
  if (status < 500 && !log.isLevelEnabled('debug')) return;
  const ms = Math.round((performance.now() - startedAt) * 10) / 10;
  log[status >= 500 ? 'warn' : 'debug']({ reqId, method, url, status, ms }, 'request');
}

const HTML_CSP =
  "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Security headers: nosniff everywhere; on HTML, a strict CSP that allows only this origin. */
export function applySecurityHeaders(ctx: Context): void {
  if (ctx.res.headersSent) return; // a handler that wrote the response itself (Koa's set would skip too)
  ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
  // A prefix test, not type-is: this runs on every response.
  const type = ctx.res.getHeader('Content-Type');
  if (typeof type === 'string' && type.startsWith('text/html')) {
    if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', HTML_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
  }
}
