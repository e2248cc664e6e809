/**
 * `npm run bench:translation`: the latency Hearth adds in front of a loopback upstream (p50/p99 at 1 and
 * 20 concurrent clients; target ≤ 0.5 ms p50 added), cached-hit throughput, and the cost of usage
 * accounting. Everything runs on loopback (upstream and load generator on their own threads); the figures
 * are printed, never asserted.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createStoreRoot } from '../../core/store/root.ts';
import { UsageLedger } from '../../plugins/translation/accounting/usage-ledger.ts';
import { startTestHub } from '../../test/helpers/hub.ts';
import { documentBench } from './translation-documents.ts';
import { memoryLookupBench } from './translation-memory.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = 500;

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
const stopChild = (child: ChildProcess) => {
  child.disconnect();
  return once(child, 'exit');
};

async function instantUpstream(): Promise<{ url: string; close(): Promise<unknown> }> {
  const worker = thread(upstreamThread);
  const [port] = (await once(worker, 'message')) as [number];
  return { url: `http://127.0.0.1:${port}`, close: () => stopChild(worker) };
}

const loader = thread(loadThread);

/** Runs `total` requests with `concurrency` clients on the load thread; sorted latencies (ms) and req/s. */
async function load(
  url: string,
  body: string,
  headers: Record<string, string>,
  concurrency: number,
  total: number,
) {
  loader.send({ url, body, headers, concurrency, total });
  const [result] = (await once(loader, 'message')) as [{ sorted: number[]; rps: number }];
  return result;
}

/**
 * Runs `run` and returns the CPU time (user + system) this process spent per request, in µs: Hearth's
 * own work, since the upstream and the clients run in other processes. Unlike latencies it barely moves
 * with other load on the machine.
 */
async function cpuPerRequest<T>(requests: number, run: () => Promise<T>): Promise<[T, number]> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return [result, (used.user + used.system) / requests];
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const f = (n: number) => n.toFixed(3);

async function main() {
  const upstream = await instantUpstream();
  const hub = async (cacheEntries: number) =>
    startTestHub({
      plugins: ['translation'],
      config: {
        log: { level: 'warn' },
        // The production store default: the test helper's 20 ms window writes the usage ledger 50 times a
        // second, which is the helper's cost, not the proxy's.
        store: { coalesceMs: 1000 },
        plugins: {
          translation: {
            engines: [{ type: 'deepl', url: upstream.url, apiKey: 'bench-upstream-key' }],
            cache: { maxEntries: cacheEntries },
          },
        },
      },
    });
  const direct = `${upstream.url}/v2/translate`;
  const body = JSON.stringify({
    text: ['The washing machine has finished'],
    target_lang: 'DE',
    source_lang: 'EN',
  });

  // Overhead: the cache is off so every request goes through parse → auth → chain → upstream → respond.
  const noCache = await hub(0);
  const keyRes = await fetch(`${noCache.url}/v2/admin/developer-keys`, {
    method: 'POST',
    headers: { authorization: `DeepL-Auth-Key ${noCache.adminKey}`, 'content-type': 'application/json' },
    body: '{"label":"bench"}',
  });
  const secret = ((await keyRes.json()) as { key: string }).key;
  const auth = { authorization: `DeepL-Auth-Key ${secret}` };
  const viaHearth = `${noCache.url}/v2/translate`;
  console.log(
    `translation overhead (${REQUESTS} requests per run after ${WARMUP} warm-up, loopback; upstream and clients in their own processes):`,
  );
  for (const concurrency of [1, 20]) {
    await load(direct, body, {}, concurrency, WARMUP);
    await load(viaHearth, body, auth, concurrency, WARMUP);
    const d = await load(direct, body, {}, concurrency, REQUESTS);
    const [h, busy] = await cpuPerRequest(REQUESTS, () => load(viaHearth, body, auth, concurrency, REQUESTS));
    console.log(
      `  ${String(concurrency).padStart(2)} client(s): direct p50 ${f(pct(d.sorted, 50))} ms p99 ${f(pct(d.sorted, 99))} ms | ` +
        `via Hearth p50 ${f(pct(h.sorted, 50))} ms p99 ${f(pct(h.sorted, 99))} ms | ` +
        `added p50 ${f(pct(h.sorted, 50) - pct(d.sorted, 50))} ms p99 ${f(pct(h.sorted, 99) - pct(d.sorted, 99))} ms | ` +
        `Hearth CPU ${busy.toFixed(0)} µs/request`,
    );
  }
  await noCache.stop();
  if (process.env.BENCH_TRANSLATION_OVERHEAD_ONLY) {
    await upstream.close();
    await stopChild(loader);
    return;
  }

  // Cached hits: the same announcement again and again.
  const cached = await hub(5000);
  const key2 = await fetch(`${cached.url}/v2/admin/developer-keys`, {
    method: 'POST',
    headers: { authorization: `DeepL-Auth-Key ${cached.adminKey}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const auth2 = { authorization: `DeepL-Auth-Key ${((await key2.json()) as { key: string }).key}` };
  for (const concurrency of [1, 20]) {
    await load(`${cached.url}/v2/translate`, body, auth2, concurrency, WARMUP);
    const [hits, busy] = await cpuPerRequest(REQUESTS, () =>
      load(`${cached.url}/v2/translate`, body, auth2, concurrency, REQUESTS),
    );
    console.log(
      `cached hits, ${String(concurrency).padStart(2)} client(s): ${Math.round(hits.rps)} req/s ` +
        `(p50 ${f(pct(hits.sorted, 50))} ms, p99 ${f(pct(hits.sorted, 99))} ms, Hearth CPU ${busy.toFixed(0)} µs/request)`,
    );
  }
  await cached.stop();
  await upstream.close();
  await stopChild(loader);

  // Usage accounting: reserve + record per request, with the real store's coalesced writes.
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-usage-'));
  const root = await createStoreRoot({ dataDir: dir, coalesceMs: 1000, log: pino({ level: 'silent' }) });
  const ledger = await UsageLedger.open(root.forOwner('translation'));
  const ops = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const account = `key:${i % 50}`;
    ledger.reserve(account, 32, 1_000_000_000);
    ledger.record(account, i % 3 ? '' : `tag${i % 7}`, 32);
  }
  const perOp = ((performance.now() - t0) * 1000) / ops;
  const f0 = performance.now();
  await ledger.flush();
  console.log(
    `usage accounting: ${perOp.toFixed(2)} µs per request (reserve + record, ${ops} requests, 50 keys); ` +
      `one coalesced write ${(performance.now() - f0).toFixed(1)} ms`,
  );
  await root.close();
  rmSync(dir, { recursive: true, force: true });
  memoryLookupBench();
  await documentBench();
}

await main();
