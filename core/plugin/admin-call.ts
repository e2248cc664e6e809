import type { CliIo } from './types.ts';

/** The hub's words for a refusal: `message` (most routers) or `detail` (problem bodies), else the body. */
const reasonOf = (body: unknown): string => {
  if (typeof body === 'object' && body !== null) {
    if ('message' in body) return String(body.message);
    if ('detail' in body) return String(body.detail);
  }
  return JSON.stringify(body);
};

/**
 * What a plugin's CLI command does with the running hub's admin API: the response body, or null after
 * printing the hub's reason on stderr.
 */
export async function adminCall<T = unknown>(
  io: CliIo,
  method: string,
  path: string,
  body?: unknown,
): Promise<T | null> {
  const res = await io.admin.request(method, path, body);
  if (res.status >= 400) {
    io.err(`error: ${reasonOf(res.body)} (HTTP ${res.status})`);
    return null;
  }
  return (res.body ?? {}) as T;
}
