import Router from '@koa/router';
import type { HearthMiddleware, HearthRouter, RouterOptions } from './types.ts';

/** A plugin's router: error shape and body parsing apply to its own matched routes only. */
export function createRouter(opts: RouterOptions, defaultLimit: string): HearthRouter {
  const router: HearthRouter = new Router(opts.prefix ? { prefix: opts.prefix } : {});
  const shape = opts.errorBody;
  if (shape) {
    router.use(async (ctx, next) => {
      ctx.state.errorBody = shape;
      await next();
    });
  }
  if (opts.body !== false) router.use(lazyBodyParser(opts.body ?? {}, defaultLimit));
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
  return async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    parser ??= load();
    return (await parser)(ctx, next);
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
