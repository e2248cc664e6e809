/**
 * A CLIP v2 client over node:https (README.md): one keep-alive agent per bridge with at most three sockets
 * (the bridge refuses a fourth concurrent request), TLS verified by tls.ts, the application key in the
 * `hue-application-key` header and nowhere else (never in an error message).
 */
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { type BridgeTrust, tlsOptions } from './tls.ts';

export type HueResource = { id: string; type: string } & Record<string, unknown>;

export class HueHttpError extends Error {
  readonly status: number;
  /** From `Retry-After`, when the bridge sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(status: number, what: string, retryAfterMs?: number) {
    super(`bridge answered ${status} to ${what}`);
    this.name = 'HueHttpError';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

export interface ClipClientOptions {
  host: string;
  port?: number;
  trust: BridgeTrust;
  appKey?: string;
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
}

export class ClipClient {
  #host: string;
  #port: number;
  readonly #appKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #agent: https.Agent;
  readonly #tls: ReturnType<typeof tlsOptions>;

  constructor(opts: ClipClientOptions) {
    this.#host = opts.host;
    this.#port = opts.port ?? 443;
    this.#appKey = opts.appKey;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#tls = tlsOptions(opts.trust);
    this.#agent = new https.Agent({ keepAlive: true, maxSockets: 3, ...this.#tls });
  }

  get address(): { host: string; port: number } {
    return { host: this.#host, port: this.#port };
  }
  /** The bridge moved (DHCP): the next requests go to the new address. */
  setAddress(host: string, port = this.#port): void {
    this.#host = host;
    this.#port = port;
    this.#agent.destroy();
  }

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const res = await this.#send(method, path, text, this.#agent);
    const raw = await readAll(res);
    let json: unknown = null;
    try {
      json = raw ? JSON.parse(raw) : null;
    } catch {
      json = null;
    }
    return { status: res.statusCode ?? 0, json };
  }

  /** Every resource of the bridge (`GET /clip/v2/resource`). */
  async getAll(): Promise<HueResource[]> {
    const { status, json } = await this.request('GET', '/clip/v2/resource');
    if (status !== 200) throw new HueHttpError(status, 'GET /clip/v2/resource');
    const data = (json as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new Error('bridge answered GET /clip/v2/resource without data');
    return data.filter((r): r is HueResource => typeof r?.id === 'string' && typeof r?.type === 'string');
  }

  /** One resource (`GET /clip/v2/resource/<type>/<id>`); null when the bridge has none by that id. */
  async getResource(type: string, id: string): Promise<HueResource | null> {
    const { status, json } = await this.request('GET', `/clip/v2/resource/${type}/${encodeURIComponent(id)}`);
    if (status === 404) return null;
    if (status !== 200) throw new HueHttpError(status, `GET ${type}`);
    const [r] = ((json as { data?: unknown })?.data ?? []) as HueResource[];
    return typeof r?.id === 'string' && r.type === type ? r : null;
  }

  async put(type: string, id: string, body: unknown): Promise<void> {
    const what = `PUT ${type}`;
    const res = await this.#send(
      'PUT',
      `/clip/v2/resource/${type}/${encodeURIComponent(id)}`,
      JSON.stringify(body),
      this.#agent,
    );
    await readAll(res);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return;
    throw new HueHttpError(status, what, retryAfter(res.headers['retry-after']));
  }

  /** Opens the event stream on its own connection (it stays open; it must not take one of the three). */
  async openEventStream(): Promise<IncomingMessage> {
    const res = await this.#send(
      'GET',
      '/eventstream/clip/v2',
      undefined,
      false,
      { accept: 'text/event-stream' },
      0,
    );
    if (res.statusCode !== 200) {
      res.resume();
      throw new HueHttpError(
        res.statusCode ?? 0,
        'GET /eventstream/clip/v2',
        retryAfter(res.headers['retry-after']),
      );
    }
    return res;
  }

  close(): void {
    this.#agent.destroy();
  }

  #send(
    method: string,
    path: string,
    text: string | undefined,
    agent: https.Agent | false,
    extra: Record<string, string> = {},
    timeoutMs = this.#timeoutMs,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: 'application/json', ...extra };
      if (this.#appKey) headers['hue-application-key'] = this.#appKey;
      if (text !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(text);
      }
      const req = https.request({
        host: this.#host,
        port: this.#port,
        method,
        path,
        headers,
        agent,
        ...(agent === false ? this.#tls : {}),
      });
      // A timeout of 0 (the event stream) is left to the stream's own read timeout.
      if (timeoutMs > 0) {
        req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path.split('?')[0]} timed out`)));
      }
      req.once('response', resolve);
      req.once('error', reject);
      req.end(text);
    });
  }
}

function retryAfter(header: string | undefined): number | undefined {
  const s = Number(header);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : undefined;
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      text += c;
    });
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
}
