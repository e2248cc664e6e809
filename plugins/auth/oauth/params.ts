import type { Context } from 'koa';
import { invalidRequest } from './errors.ts';

export type Params = Record<string, unknown>;

/** The parsed urlencoded/JSON body (koa-body), or an empty object. */
export function bodyOf(ctx: Context): Params {
  const body = (ctx.request as { body?: unknown }).body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Params) : {};
}

/** One request parameter; RFC 6749 §3.1: parameters must not be included more than once. */
export function param(p: Params, name: string): string | undefined {
  const v = p[name];
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
