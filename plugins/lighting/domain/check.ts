/** Small field checks for request bodies. Each failure is a 400 whose message names the field. */
import { HttpError } from '../../../core/sdk.ts';

export type Body = Record<string, unknown>;

export const invalid = (message: string) => new HttpError(400, 'invalid_request', message);

/** The JSON body must be an object (not an array, string or null). */
export function asObject(value: unknown, what = 'request body'): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${what} must be a JSON object`);
  }
  return value as Body;
}

export function str(body: Body, field: string, opts: { max?: number } = {}): string {
  const v = body[field];
  if (v === undefined) throw invalid(`${field} is required`);
  if (typeof v !== 'string') throw invalid(`${field} must be a string`);
  const max = opts.max ?? 200;
  if (v.trim() === '') throw invalid(`${field} must not be empty`);
  if (v.length > max) throw invalid(`${field} must be at most ${max} characters`);
  return v;
}

export function optStr(body: Body, field: string, opts: { max?: number } = {}): string | undefined {
  return body[field] === undefined ? undefined : str(body, field, opts);
}

export function bool(body: Body, field: string): boolean {
  const v = body[field];
  if (v === undefined) throw invalid(`${field} is required`);
  if (typeof v !== 'boolean') throw invalid(`${field} must be true or false`);
  return v;
}

/** spec: bri is an integer 0..255. */
export function bri(body: Body, field = 'bri'): number {
  const v = body[field];
  if (v === undefined) throw invalid(`${field} is required`);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) {
    throw invalid(`${field} must be an integer from 0 to 255`);
  }
  return v;
}

export function strArray(body: Body, field: string, opts: { max?: number } = {}): string[] {
  const v = body[field];
  if (v === undefined) throw invalid(`${field} is required`);
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) {
    throw invalid(`${field} must be an array of non-empty strings`);
  }
  const max = opts.max ?? 500;
  if (v.length > max) throw invalid(`${field} must have at most ${max} entries`);
  return [...new Set(v as string[])];
}

/** Refuses fields the resource does not have, so a typo is reported rather than silently dropped. */
export function onlyFields(body: Body, allowed: readonly string[], extra?: (key: string) => boolean): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key) && !extra?.(key)) throw invalid(`unknown field ${key}`);
  }
}

/**
 * Runs the checks of a nested object so their messages name its path: `action._id is required`,
 * `unknown field state[0].colour`.
 */
export function nested<T>(path: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 400) throw err;
    const unknown = /^unknown field (.*)$/s.exec(err.message);
    throw invalid(unknown ? `unknown field ${path}.${unknown[1]}` : `${path}.${err.message}`);
  }
}
