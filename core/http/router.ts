import Router from '@koa/router';
import { memoizeMatches } from './route-memo.ts';
import type { HearthMiddleware, HearthRouter, RouterOptions } from './types.ts';

/**
 * A plugin's router. Body parsing runs as the first middleware of each route rather than as a router-wide
 * `use` layer, so it costs nothing on requests the router does not match and adds no layer to match. The
 * error shape (`errorBody`) is applied by the listener while this router has the request.
 */
export function createRouter(opts: RouterOptions, defaultLimit: string): HearthRouter {
  const router: HearthRouter = new Router(opts.prefix ? { prefix: opts.prefix } : {});
  memoizeMatches(router);
  if (opts.body === false) return router;
  const parse = lazyBodyParser(opts.body ?? {}, defaultLimit);
  const register = router.register.bind(router);
  // Routes (methods given) get the parser first; `use` layers (no methods) stay as they are.
  router.register = (path, methods, middleware, more) =>
    register(path, methods, methods.length > 0 ? [parse, ...[middleware].flat()] : middleware, more);
  return router;
}

/**
 * koa-body, imported on the first request that carries a body: with its schema and multipart layers it
 * is ~9 MB of resident memory an idle hub does not need.
 */
function lazyBodyParser(
  opts: { limit?: string; form?: boolean; text?: boolean },
  defaultLimit: string,
): HearthMiddleware {
  let parser: Promise<HearthMiddleware> | undefined;
  const load = async (): Promise<HearthMiddleware> => {
    const { HttpMethodEnum, koaBody } = await import('koa-body');
    const limit = opts.limit ?? defaultLimit;
    return koaBody({
      json: true,
      urlencoded: opts.form ?? true,
      text: opts.text ?? false,
      multipart: false,
      jsonLimit: limit,
      formLimit: limit,
      textLimit: limit,
      // Strict: a JSON body must be an object or array; a bare `3` is malformed input here.
      jsonStrict: true,
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    }) as HearthMiddleware;
  };
  let loaded: HearthMiddleware | undefined;
  return async (ctx, next) => {
    // A body is read once, even when a route passes the request on to another matching route.
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS' || ctx.state.bodyRead) {
      return next();
    }
    ctx.state.bodyRead = true;
    if (!loaded) {
      parser ??= load();
      loaded = await parser;
    }
    return loaded(ctx, next);
  };
}

/** The methods any of these routers answers on `path` (for 405 + Allow). */
export function allowedMethods(routers: Iterable<HearthRouter>, path: string): string[] {
  const methods = new Set<string>();
  for (const router of routers) {
    for (const layer of router.match(path, 'GET').path) for (const m of layer.methods) methods.add(m);
  }
  return [...methods].sort();
}
