import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { notFoundError } from '../errors.ts';

const FALLBACK = 'translation-fallback';

/**
 * The last route of the plugin's router: every other `/v2/...` and `/v3/...` request. The core answers
 * unmatched paths itself, but outside this router, so without its `X-Trace-ID` (every response must carry
 * one) and without the `{message}` body. Known paths with another method get 405 and `Allow`, as the core
 * would give them; unknown paths get 404.
 */
export function mountFallback(router: HearthRouter): void {
  const answer: Parameters<HearthRouter['all']>[2] = (ctx) => {
    const allowed = new Set<string>();
    for (const layer of router.match(ctx.path, ctx.method).path) {
      if (layer.name !== FALLBACK) for (const method of layer.methods) allowed.add(method);
    }
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}.`, {
        headers: { Allow: allow },
      });
    }
    throw notFoundError(`No route for ${ctx.method} ${ctx.path}.`);
  };
  // One route per prefix: @koa/router refuses a named route with a path list.
  for (const prefix of ['/v2', '/v3']) router.all(FALLBACK, `${prefix}{/*rest}`, answer);
}
