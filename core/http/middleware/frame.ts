import type { Logger } from 'pino';
import type { HearthMiddleware } from '../types.ts';
import { applySecurityHeaders, assignRequestId, logAccess } from './basics.ts';
import { compressAsset } from './compress.ts';
import { answerError } from './errors.ts';

/**
 * What every request on every listener goes through, in one middleware rather than four: each Koa layer
 * costs a promise and a closure per request, and the site API's budget is a few tens of microseconds.
 * Order as seen by the handler: request id → (handler) → asset compression → error answer → security
 * headers → access log → the latency histogram.
 */
export function frame(
  log: Logger,
  observe?: (route: unknown, method: string, status: number, seconds: number) => void,
): HearthMiddleware {
  return async (ctx, next) => {
    const startedAt = performance.now();
    assignRequestId(ctx);
    try {
      await next();
      compressAsset(ctx);
    } catch (err) {
      answerError(log, ctx, err);
    }
    applySecurityHeaders(ctx);
    logAccess(log, ctx, startedAt);
    // The router's template (`/light/:id`), never the path itself (it can carry a site key).
    const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
    observe?.(route, ctx.method, ctx.status, (performance.now() - startedAt) / 1000);
  };
}
