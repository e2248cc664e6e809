import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { FormError, readForm } from '../web/form.ts';
import { invalidRequest, invalidTarget } from './errors.ts';

export type Params = Record<string, unknown>;

/** The parsed urlencoded/JSON body (koa-body), or an empty object. */
export function bodyOf(ctx: Context): Params {
  const body = (ctx.request as { body?: unknown }).body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Params) : {};
}

/**
 * Reads the form body of /oauth/token, /introspect and /revoke (RFC 6749 §3.2: form-encoded only). These
 * routes parse with URLSearchParams themselves: the generic body parser cost more than signing the token.
 * Repeated parameters become arrays so `param` can refuse them.
 */
export async function readOAuthForm(from: { req: IncomingMessage }): Promise<Params> {
  let form: URLSearchParams;
  try {
    form = await readForm(from);
  } catch (err) {
    if (err instanceof FormError) throw invalidRequest(`${err.message} (application/x-www-form-urlencoded)`);
    throw err;
  }
  // Null prototype: a parameter named `constructor` or `__proto__` is just a parameter.
  const out: Params = Object.create(null) as Params;
  for (const [k, v] of form) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    out[k] = prev === undefined ? v : [...[prev].flat(), v];
  }
  return out;
}

/** One request parameter; RFC 6749 §3.1: parameters must not be included more than once. */
export function param(p: Params, name: string): string | undefined {
  const v = Object.hasOwn(p, name) ? p[name] : undefined;
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw invalidRequest(`parameter ${name} must appear once, as a string`);
  return v;
}

export function required(p: Params, name: string): string {
  const v = param(p, name);
  if (v === undefined) throw invalidRequest(`missing parameter ${name}`);
  return v;
}

/** Query parameters as a Params object (koa gives string | string[]). */
export const queryOf = (ctx: Context): Params => ctx.query as Params;

/** RFC 8707 `resource`: one absolute URI; several (this server issues a token for one) are invalid_target. */
export function resourceParam(p: Params): string | undefined {
  const v = Object.hasOwn(p, 'resource') ? p.resource : undefined;
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw invalidTarget('one resource per token request');
  return v;
}
