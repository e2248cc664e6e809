import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Context, DefaultContext, DefaultState } from 'koa';
import { HttpError } from './errors.ts';

/** What a route handler of a plugin's router receives: Koa's context plus the route's path parameters. */
export type RouteContext = RouterContext<DefaultState, DefaultContext>;

/** A path parameter of the matched route (`/light/:id` → `routeParam(ctx, 'id')`), '' when absent. */
export function routeParam(ctx: RouteContext, name: string): string {
  return ctx.params[name] ?? '';
}

/**
 * The parsed request body (JSON, form or text, per the router's `body` option), as `unknown` so every
 * handler validates it before use. koa-body sets it on the request; Koa's own types do not declare it.
 */
export function requestBody(ctx: Context): unknown {
  return (ctx.request as { body?: unknown }).body;
}

/** Middleware on a plugin's router, with the route's path parameters in its context. */
export type RouteMiddleware = RouterMiddleware<DefaultState, DefaultContext>;

/** The JSON object body of an admin or plugin route: 415 without a JSON content type, 400 when not an object. */
export function jsonObjectBody(ctx: Context): Record<string, unknown> {
  if (!ctx.is('application/json'))
    throw new HttpError(415, 'unsupported_media_type', 'send a JSON body (Content-Type: application/json)');
  const body = requestBody(ctx);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, 'invalid_request', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}
