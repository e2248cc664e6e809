/**
 * The peers of the translation benchmarks: a loopback upstream that answers like DeepL at once, and a load
 * generator, each in its own process; and a bare Node proxy, run in the caller's process like the hub.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The upstream and the load generator each run in their own process, so this process only does Hearth's
 * work (its CPU time per request is the cost Hearth adds) and "direct" and "via Hearth" have the same
 * parties. Both are plain functions sent to the child as source: they must not use anything from this
 * module; `parentPort` is the child's IPC channel.
 */
/** The IPC channel the child prelude provides to the functions below. */
declare const parentPort: {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: never) => void): void;
};

function upstreamThread() {
  const http = require('node:http');
  const server = http.createServer(
    (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // Like DeepL: a language list (read once by Hearth at start), and translations.
        const languages = [
          { language: 'EN', name: 'English' },
          { language: 'DE', name: 'German' },
        ];
        const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
        const out = req.url?.startsWith('/v2/languages')
          ? JSON.stringify(languages)
          : JSON.stringify({
              translations: (body.text ?? []).map((t: string) => ({
                detected_source_language: 'EN',
                text: t.toUpperCase(),
              })),
            });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
        res.end(out);
      });
    },
  );
  server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
}

function loadThread() {
  const http = require('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = (url: string, body: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...headers,
          },
        },
        (res: import('node:http').IncomingMessage) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
              : reject(new Error(`status ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  parentPort.on(
    'message',
    async (job: {
      url: string;
      body: string;
      headers: Record<string, string>;
      concurrency: number;
      total: number;
    }) => {
      const latencies: number[] = [];
      let left = job.total;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: job.concurrency }, async () => {
          while (left-- > 0) latencies.push(await post(job.url, job.body, job.headers));
        }),
      );
      parentPort.postMessage({
        sorted: latencies.sort((a, b) => a - b),
        rps: job.total / ((performance.now() - t0) / 1000),
      });
    },
  );
}

// tsx (esbuild keepNames) wraps functions in `__name(...)`: the child gets a no-op shim for it.
const CHILD_PRELUDE =
  'const __name = (f) => f; const parentPort = { postMessage: (m) => process.send(m), ' +
  "on: (e, f) => process.on(e, f) }; process.on('disconnect', () => process.exit(0));";
const thread = (fn: () => void): ChildProcess =>
  spawn(process.execPath, ['-e', `${CHILD_PRELUDE} (${fn.toString()})()`], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
export const stopChild = (child: ChildProcess) => {
  child.disconnect();
  return once(child, 'exit');
};

export async function instantUpstream(): Promise<{ url: string; close(): Promise<unknown> }> {
  const worker = thread(upstreamThread);
  const [port] = (await once(worker, 'message')) as [number];
  return { url: `http://127.0.0.1:${port}`, close: () => stopChild(worker) };
}

/** The load generator's process; `load` runs `total` requests with `concurrency` clients on it. */
export function startLoader() {
  const loader = thread(loadThread);
  return {
    /** Sorted latencies (ms) and req/s; every answer must be a 200. */
    async load(
      url: string,
      body: string,
      headers: Record<string, string>,
      concurrency: number,
      total: number,
    ) {
      loader.send({ url, body, headers, concurrency, total });
      const [result] = (await once(loader, 'message')) as [{ sorted: number[]; rps: number }];
      return result;
    },
    stop: () => stopChild(loader),
  };
}

/**
 * The floor for any Node proxy: node:http in, one keep-alive node:http request out, the answer passed back
 * as it came. No parsing, no checks, no accounting. Runs in the calling process, so its CPU per request is
 * measured exactly as the hub's is.
 */
export async function bareProxy(upstreamUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const out = http.request(
        {
          hostname: upstream.hostname,
          port: upstream.port,
          path: '/v2/translate',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(parts).toString();
            res.writeHead(answer.statusCode ?? 502, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(text),
            });
            res.end(text);
          });
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
