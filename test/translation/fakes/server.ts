import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Set when the connection closed before the fake answered (the caller cancelled the request). */
  aborted?: boolean;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Failure injected at the wire: a status and body, a delay, or a dropped connection. */
export interface Trouble {
  status?: number;
  body?: string;
  delayMs?: number;
  hangUp?: boolean;
  /** How many requests (to `path`, when set) it affects; Infinity by default. */
  times?: number;
  path?: string;
}

/** A loopback HTTP server speaking an upstream's API, with injectable slowness and failures. */
export class FakeUpstream {
  readonly requests: FakeRequest[] = [];
  private troubles: Trouble[] = [];
  private server: http.Server;
  url = '';

  constructor(private readonly handle: (req: FakeRequest) => Reply | Promise<Reply>) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void this.respond(req, Buffer.concat(chunks).toString('utf8'), res));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Requests to paths other than the language list (the translate calls that matter in tests). */
  calls(path: string): FakeRequest[] {
    return this.requests.filter((r) => r.path.split('?')[0] === path);
  }

  trouble(t: Trouble): void {
    this.troubles.push({ times: Number.POSITIVE_INFINITY, ...t });
  }

  heal(): void {
    this.troubles = [];
  }

  private async respond(req: http.IncomingMessage, body: string, res: http.ServerResponse) {
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
    };
    this.requests.push(request);
    res.once('close', () => {
      if (!res.writableFinished) request.aborted = true;
    });
    const trouble = this.troubles.find(
      (t) => (t.times ?? 0) > 0 && (!t.path || request.path.startsWith(t.path)),
    );
    if (trouble) {
      trouble.times = (trouble.times ?? 1) - 1;
      if (trouble.delayMs) {
        // A caller that gives up ends the wait (no timer left behind for a request nobody reads).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, trouble.delayMs);
          res.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (request.aborted) return;
      }
      if (trouble.hangUp) return void req.socket.destroy();
      if (trouble.status !== undefined) {
        res.writeHead(trouble.status, { 'content-type': 'application/json' });
        return void res.end(trouble.body ?? '');
      }
    }
    const reply = await this.handle(request);
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The fakes' "translation": upper-case text (outside tags when `markup`), so results are predictable. */
export const shout = (text: string, markup = false) =>
  markup
    ? text.replace(/(^|>)([^<]+)/g, (_m, a: string, b: string) => a + b.toUpperCase())
    : text.toUpperCase();

/** A parsed JSON or form body. */
export function bodyOf(req: FakeRequest): Record<string, unknown> {
  if (String(req.headers['content-type']).startsWith('application/json')) {
    return JSON.parse(req.body) as Record<string, unknown>;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(req.body)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
