import Router from '@koa/router';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { HearthRouter, RouterOptions } from './types.ts';

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
  if (opts.body !== false) {
    const limit = opts.body?.limit ?? defaultLimit;
    router.use(
      koaBody({
        json: true,
        urlencoded: opts.body?.form ?? true,
        text: opts.body?.text ?? false,
        multipart: false,
        jsonLimit: limit,
        formLimit: limit,
        textLimit: limit,
        // Strict: a JSON body must be an object or array; a bare `3` is malformed input here.
        jsonStrict: true,
        parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      }),
    );
  }
  return router;
}

/** The methods any of these routers answers on `path` (for 405 + Allow). */
export function allowedMethods(routers: Iterable<HearthRouter>, path: string): string[] {
  const methods = new Set<string>();
  for (const router of routers) {
    for (const layer of router.match(path, 'GET').path) for (const m of layer.methods) methods.add(m);
  }
  return [...methods].sort();
}
