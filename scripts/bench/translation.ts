/**
 * `npm run bench:translation`: the latency Hearth adds in front of a loopback upstream (p50/p99 at 1 and
 * 20 concurrent clients; target ≤ 0.25 ms p50 added at one client), cached-hit throughput, and the cost of usage
 * accounting. Everything runs on loopback (upstream and load generator on their own threads); the figures
 * are printed, never asserted.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createStoreRoot } from '../../core/store/root.ts';
import { UsageLedger } from '../../plugins/translation/accounting/usage-ledger.ts';
import { startTestHub } from '../../test/helpers/hub.ts';
import { documentBench } from './translation-documents.ts';
import { memoryLookupBench } from './translation-memory.ts';
import { instantUpstream, startLoader } from './translation-peers.ts';

const loader = startLoader();
const load = loader.load;

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = 500;

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
    await loader.stop();
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
  await loader.stop();

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
