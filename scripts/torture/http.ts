/** One HTTP request with full control of bytes and headers (fetch normalises what the fuzzer must not). */
import http from 'node:http';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected field by field
  body: any;
  ms: number;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as application/json unless `raw` is given. */
  json?: unknown;
  raw?: Buffer | string;
  timeoutMs?: number;
  agent?: http.Agent;
}

export const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 16 });

export function request(url: string, opts: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let payload: Buffer | undefined;
  if (opts.raw !== undefined) payload = Buffer.from(opts.raw);
  else if (opts.json !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.json));
    headers['content-type'] ??= 'application/json';
  }
  if (payload) headers['content-length'] = String(payload.length);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method ?? 'GET', headers, agent: opts.agent ?? keepAlive },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body,
            ms: performance.now() - t0,
          });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(opts.timeoutMs ?? 15_000, () =>
      req.destroy(new Error(`no answer in ${opts.timeoutMs ?? 15_000} ms`)),
    );
    req.once('error', reject);
    req.end(payload);
  });
}
