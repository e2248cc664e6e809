/**
 * Requests to upstream providers (discovery, token endpoints), bounded so a slow or hostile provider cannot
 * hold a request or memory: http(s) only, no redirects followed, 5 s for the whole exchange, at most
 * 64 KiB of body. Errors carry the URL's origin and path, never a query, a body or a credential.
 */
const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5000;

export class UpstreamError extends Error {}

export interface UpstreamResponse {
  status: number;
  json: Record<string, unknown> | null;
}

async function readLimited(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel();
      throw new UpstreamError('the provider answered more than 64 KiB');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const where = (u: URL) => `${u.origin}${u.pathname}`;

/** An upstream URL may be http only on loopback (a test provider, a provider on the hub itself). */
export function checkUpstreamUrl(value: unknown): URL {
  if (typeof value !== 'string') throw new UpstreamError('the provider named no URL');
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UpstreamError('the provider named an invalid URL');
  }
  const loopback = u.hostname === '127.0.0.1' || u.hostname === '[::1]' || u.hostname === 'localhost';
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw new UpstreamError(`${where(u)} is not https`);
  return u;
}

async function send(u: URL, init: RequestInit): Promise<UpstreamResponse> {
  let res: Response;
  try {
    res = await fetch(u, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new UpstreamError(`${where(u)} could not be reached`);
  }
  let text: string;
  try {
    text = await readLimited(res);
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    throw new UpstreamError(`${where(u)} did not answer in time`);
  }
  let json: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) json = v as Record<string, unknown>;
  } catch {}
  return { status: res.status, json };
}

export async function getJson(url: URL): Promise<Record<string, unknown>> {
  const r = await send(url, { headers: { accept: 'application/json' } });
  if (r.status !== 200 || !r.json) throw new UpstreamError(`${where(url)} answered ${r.status}`);
  return r.json;
}

/** A form POST (token endpoints, RFC 6749 §4.1.3); the caller reads `status` and the JSON body. */
export function postForm(
  url: URL,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<UpstreamResponse> {
  return send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** RFC 6749 §2.3.1: client_secret_basic form-urlencodes id and secret before base64. */
export const basicAuth = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
