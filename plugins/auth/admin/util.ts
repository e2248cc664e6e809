import type { Context } from 'koa';
import { HttpError } from '../../../core/sdk.ts';
import type { AuthServices } from '../services.ts';

export const badInput = (message: string) => new HttpError(400, 'invalid_request', message);
export const conflict = (code: string, message: string) => new HttpError(409, code, message);
export const missing = (code: string, message: string) => new HttpError(404, code, message);

/** The JSON object body of an admin write, or 400. */
export function jsonBody(ctx: Context): Record<string, unknown> {
  if (!ctx.is('application/json'))
    throw new HttpError(415, 'unsupported_media_type', 'send application/json');
  const body = (ctx.request as { body?: unknown }).body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badInput('expected a JSON object body');
  return body as Record<string, unknown>;
}

export function str(body: Record<string, unknown>, name: string, required: true): string;
export function str(body: Record<string, unknown>, name: string, required: false): string | undefined;
export function str(body: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string') throw badInput(`${name} is required and must be a string`);
  return v;
}

export function strArray(
  body: Record<string, unknown>,
  name: string,
  required: boolean,
): string[] | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw badInput(`${name} must be an array of strings`);
  return [...new Set(v as string[])];
}

export function bool(body: Record<string, unknown>, name: string, required: boolean): boolean | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'boolean') throw badInput(`${name} is required and must be a boolean`);
  return v;
}

/** `limit`/`offset` query integers within bounds (defaults and maxima documented in the README). */
export function intQuery(ctx: Context, name: string, def: number, max: number): number {
  const v = ctx.query[name];
  if (v === undefined || v === '') return def;
  if (typeof v !== 'string' || !/^\d{1,9}$/.test(v)) throw badInput(`${name} must be a non-negative integer`);
  const n = Number(v);
  if (n > max) throw badInput(`${name} must be at most ${max}`);
  return n;
}

/** A time query value: RFC 3339 or Unix seconds. */
export function timeQuery(ctx: Context, name: string): number | undefined {
  const v = ctx.query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw badInput(`${name} must appear once`);
  const n = /^\d{1,12}$/.test(v) ? Number(v) * 1000 : Date.parse(v);
  if (!Number.isFinite(n)) throw badInput(`${name} must be an RFC 3339 time or Unix seconds`);
  return n;
}

export function strQuery(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw badInput(`${name} must appear once`);
  return v;
}

/** Every admin write is audited with actor `admin` (the only admin identity in part 1). */
export function auditAdmin(
  s: AuthServices,
  ctx: Context,
  action: string,
  fields: { client_id?: string; detail?: string } = {},
): void {
  void s.audit.record(action, { actor_id: 'admin', ip: ctx.ip, ...fields });
}

/** A route parameter (the router adds `params` to the Koa context). */
export const param = (ctx: object, name: string): string =>
  (ctx as { params?: Record<string, string | undefined> }).params?.[name] ?? '';
