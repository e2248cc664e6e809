import http from 'node:http';
import https from 'node:https';
import { VERSION } from '../../../core/sdk.ts';
import type { AbortLike } from '../cancellation.ts';
import { Deadlines } from './deadlines.ts';
import { UpstreamError } from './types.ts';

/**
 * Sent on every upstream request, shaped like the official DeepL clients' (`deepl-node/<v> (<os>) node/<v>`):
 * strict DeepL-compatible servers refuse a request without one.
 */
export const USER_AGENT = `Hearth/${VERSION} (${process.platform} ${process.arch}) node/${process.versions.node}`;

export interface UpstreamResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One keep-alive connection pool per engine (DeepL recommends keep-alive, docs/translation.md#transport-and-authentication). node:http is
 * used directly: it adds less per request than fetch, which matters for the 0.5 ms overhead budget.
 */
export class UpstreamClient {
  private readonly base: URL;
  /** The request options every call shares (host, port, protocol), worked out once. */
  private readonly origin: { protocol: string; hostname: string; port: string };
  private readonly agent: http.Agent;
  private readonly mod: typeof http | typeof https;
  /** Every call's timeout, behind one timer (no Node timer per request). */
  private readonly deadlines = new Deadlines();

  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.origin = {
      protocol: this.base.protocol,
      hostname: this.base.hostname.replace(/^\[|\]$/g, ''), // IPv6 literals come bracketed
      port: this.base.port,
    };
    const secure = this.base.protocol === 'https:';
    this.mod = secure ? https : http;
    this.agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 32 })
      : new http.Agent({ keepAlive: true, maxSockets: 32 });
  }

  /** Requests in flight, destroyed by `close()` (plugin stop). */
  private readonly inFlight = new Set<http.ClientRequest>();

  /** Sends a request; network failures and timeouts become transient UpstreamErrors (never with headers). */
  request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    opts: { headers?: Record<string, string>; json?: unknown; signal?: AbortLike } = {},
  ): Promise<UpstreamResponse> {
    if (opts.signal?.aborted) return Promise.reject(new UpstreamError('transient', 'request aborted'));
    // Plain options instead of a URL per request (this path is in the overhead budget).
    const { protocol, hostname, port } = this.origin;
    const target = {
      protocol,
      hostname,
      port,
      path: this.base.pathname + (path[0] === '/' ? path.slice(1) : path),
    };
    // A string body goes out in one write together with the headers (a Buffer would make a writev of two).
    const payload = opts.json === undefined ? undefined : JSON.stringify(opts.json);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...opts.headers,
    };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const signal = opts.signal;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = () => {
        if (settled) return false;
        settled = true;
        deadline.cancel();
        signal?.removeEventListener('abort', cancel);
        this.inFlight.delete(req);
        return true;
      };
      // Nobody waits for the answer any more (attempt bound passed, every caller gone): stop the upstream work.
      const cancel = () => fail(new UpstreamError('transient', 'request aborted'));
      const fail = (err: UpstreamError) => {
        if (!settle()) return;
        req.destroy();
        reject(err);
      };
      const deadline = this.deadlines.after(this.timeoutMs, () =>
        fail(new UpstreamError('transient', `no answer within ${this.timeoutMs} ms`)),
      );
      const req = this.mod.request({ ...target, method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () =>
          fail(new UpstreamError('transient', 'connection lost while reading the answer')),
        );
        res.on('end', () => {
          if (!settle()) return;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        fail(new UpstreamError('transient', `connection failed (${err.code ?? 'error'})`)),
      );
      this.inFlight.add(req);
      signal?.addEventListener('abort', cancel, { once: true });
      req.end(payload);
    });
  }

  close(): void {
    for (const req of this.inFlight) req.destroy();
    this.agent.destroy();
  }
}

/** Parses a JSON body; anything else is the engine misbehaving. */
export function jsonBody(res: UpstreamResponse, engine: string): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new UpstreamError(
      'invalid_response',
      `${engine} answered ${res.status} with a body that is not JSON`,
    );
  }
}

/**
 * An upstream's message, shortened for our own error text, with our upstream key taken out first (an
 * upstream may quote it; shortening first could leave a piece of it that no longer matches).
 */
export function clip(text: unknown, secret = ''): string {
  const message = String(text ?? '');
  return (secret ? message.replaceAll(secret, '***') : message).slice(0, 200);
}
