/**
 * Store throughput on a 1,000-record file (about 70 kB of JSON):
 * - coalesced update() calls per second, and the disk writes they cost (window `COALESCE_MS`);
 * - fsynced commit() per second from one caller (every commit is its own write);
 * - commit() per second from 16 concurrent callers (group commit: one write serves many).
 *
 *   node --import tsx scripts/bench/store.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createStoreRoot } from '../../core/store/root.ts';
import type { DocStore } from '../../core/store/types.ts';

const PHASE_MS = 1500;
const COALESCE_MS = 100;
const CALLERS = 16;

interface Lights {
  records: Array<{ id: string; name: string; room: string; level: number; on: boolean; updatedAt: number }>;
}

const lights = (): Lights => ({
  records: Array.from({ length: 1000 }, (_, i) => ({
    id: `light-${i}`,
    name: `Light ${i}`,
    room: `room-${i % 40}`,
    level: 0,
    on: false,
    updatedAt: 0,
  })),
});

const touch = (n: number) => (d: Lights) => {
  const record = d.records[n % d.records.length];
  if (record) {
    record.level = n % 256;
    record.on = n % 2 === 0;
    record.updatedAt = n;
  }
};

/** Runs `step` until the phase time is up; returns how many steps ran and how many seconds it took. */
async function timed(step: (n: number) => Promise<void> | void): Promise<{ count: number; seconds: number }> {
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < PHASE_MS) await step(count++);
  return { count, seconds: (performance.now() - started) / 1000 };
}

async function withDoc<R>(
  coalesceMs: number,
  fn: (doc: DocStore<Lights>, writes: () => number) => Promise<R>,
) {
  const dataDir = await mkdtemp(join(tmpdir(), 'hearth-bench-store-'));
  let writes = 0;
  const root = await createStoreRoot({
    dataDir,
    coalesceMs,
    log: pino({ level: 'warn' }),
    onWrite: () => {
      writes += 1;
    },
  });
  try {
    const doc = await root.forOwner('bench').open('lights', lights());
    await doc.commit(() => {}); // the file exists before measuring, as in a running hub
    writes = 0;
    return await fn(doc, () => writes);
  } finally {
    await root.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function benchStore(): Promise<Record<string, number>> {
  const coalesced = await withDoc(COALESCE_MS, async (doc, writes) => {
    const { count, seconds } = await timed(async (n) => {
      doc.update(touch(n));
      // Yield now and then so the coalescing timer and its write get their turn, as in a live hub.
      if (n % 500 === 0) await new Promise((r) => setImmediate(r));
    });
    await doc.flush();
    return { updates: count / seconds, writes: writes() / seconds };
  });

  const sequential = await withDoc(COALESCE_MS, async (doc, writes) => {
    const { count, seconds } = await timed((n) => doc.commit(touch(n)));
    return { commits: count / seconds, writes: writes() / seconds };
  });

  const concurrent = await withDoc(COALESCE_MS, async (doc, writes) => {
    let n = 0;
    const { count, seconds } = await timed(() =>
      Promise.all(Array.from({ length: CALLERS }, () => doc.commit(touch(n++)))).then(() => {}),
    );
    return { commits: (count * CALLERS) / seconds, writes: writes() / seconds };
  });

  const round = (v: number) => Math.round(v);
  return {
    store_coalesced_updates_per_s: round(coalesced.updates),
    store_coalesced_disk_writes_per_s: round(coalesced.writes),
    store_fsynced_commits_per_s: round(sequential.commits),
    [`store_commits_per_s_${CALLERS}_callers`]: round(concurrent.commits),
    [`store_disk_writes_per_s_${CALLERS}_callers`]: round(concurrent.writes),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await benchStore();
  for (const [name, value] of Object.entries(figures)) console.log(`${name.padEnd(40)} ${value}`);
}
