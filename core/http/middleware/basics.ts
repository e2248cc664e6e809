import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { HearthMiddleware } from '../types.ts';

/** Echoes a sane incoming X-Request-Id or makes one; every access-log line carries it. */
export const requestId: HearthMiddleware = async (ctx, next) => {
  const incoming = ctx.get('x-request-id');
  const id = /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : randomUUID();
  ctx.state.reqId = id;
  ctx.set('X-Request-Id', id);
  await next();
};

/** One line per request. The URL goes through the logger's redactor like everything else. */
export function accessLog(log: Logger): HearthMiddleware {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      if (log.isLevelEnabled('debug') || ctx.status >= 500) {
        const ms = Math.round((performance.now() - start) * 10) / 10;
        log[ctx.status >= 500 ? 'warn' : 'debug'](
          { reqId: ctx.state.reqId, method: ctx.method, url: ctx.url, status: ctx.status, ms },
          'request',
        );
      }
    }
  };
}

/** Security headers: nosniff everywhere; on HTML, a strict CSP that allows only this origin. */
export const securityHeaders: HearthMiddleware = async (ctx, next) => {
  await next();
  ctx.set('X-Content-Type-Options', 'nosniff');
  // A prefix test, not type-is: this runs on every response.
  const type = ctx.response.get('Content-Type');
  if (typeof type === 'string' && type.startsWith('text/html')) {
    if (!ctx.response.get('Content-Security-Policy')) {
      ctx.set(
        'Content-Security-Policy',
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
    }
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
  }
};
