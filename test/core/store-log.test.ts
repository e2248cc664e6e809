import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonDocStore } from '../../core/store/doc-store.ts';
import { BoundedLogStore, type LogFile } from '../../core/store/log-store.ts';
import { WriteGate } from '../../core/store/write-gate.ts';
import { captureLog, openRoot, readJson, tempDataDir } from './fixtures/store-helpers.ts';

let dataDir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir: dataDir, cleanup } = await tempDataDir());
});
afterEach(async () => {
  await cleanup();
});

interface Entry {
  n: number;
  at: number;
}

describe('LogStore', () => {
  it('keeps only the newest `max` entries, in memory and on disk', async () => {
    const { root } = await openRoot(dataDir, 60_000);
    const log = await root.forOwner('auth').openLog<Entry>('audit', { max: 10 });
    for (let n = 1; n <= 25; n++) await log.append({ n, at: Date.now() });
    expect(log.items.map((e) => e.n)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    await log.flush();
    const onDisk = (await readJson(join(dataDir, 'auth.audit.json'))) as LogFile<Entry>;
    expect(onDisk.items.map((e) => e.n)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    await root.close();
  });

  it('makes a durable append durable before it resolves, and a plain one only on flush', async () => {
    const { root, writes } = await openRoot(dataDir, 60_000);
    const log = await root.forOwner('auth').openLog<Entry>('issued', { max: 100 });
    await log.append({ n: 1, at: Date.now() });
    expect(writes).toEqual([]);
    await log.append({ n: 2, at: Date.now() }, { durable: true });
    expect(writes).toEqual(['auth.issued.json']);
    expect(((await readJson(join(dataDir, 'auth.issued.json'))) as LogFile<Entry>).items).toHaveLength(2);
    await root.close();
  });

  it('prunes by age on open, on append, on prune() and right before a write', async () => {
    const file = join(dataDir, 'usage.events.json');
    let now = 1_000_000;
    const open = async () => {
      const doc = await JsonDocStore.open<LogFile<Entry>>(
        file,
        { items: [] },
        { log: captureLog().log, gate: new WriteGate(), coalesceMs: 60_000 },
      );
      return {
        doc,
        log: new BoundedLogStore<Entry>(doc, { max: 100, maxAgeMs: 1000, timeOf: (e) => e.at }, () => now),
      };
    };

    const first = await open();
    await first.log.append({ n: 1, at: now - 5000 }); // already too old: dropped on append
    await first.log.append({ n: 2, at: now - 500 });
    await first.log.append({ n: 3, at: now }, { durable: true });
    expect(first.log.items.map((e) => e.n)).toEqual([2, 3]);

    now += 600; // entry 2 is now 1100 ms old
    expect(first.log.prune()).toBe(1);
    expect(first.log.prune()).toBe(0);
    expect(first.log.items.map((e) => e.n)).toEqual([3]);
    await first.log.append({ n: 4, at: now });
    now += 1500; // entry 3 and 4 age out while the write is pending
    await first.log.flush();
    expect(((await readJson(file)) as LogFile<Entry>).items).toEqual([]);
    await first.doc.close();

    await writeFile(
      file,
      JSON.stringify({
        items: [
          { n: 5, at: now - 5000 },
          { n: 6, at: now },
        ],
      }),
    );
    const second = await open();
    expect(second.log.items.map((e) => e.n)).toEqual([6]);
    await second.doc.close();
  });

  it('looks only at the head of the log on append; the full age pass runs before the write', async () => {
    const now = 1_000_000;
    let timeOfCalls = 0;
    const doc = await JsonDocStore.open<LogFile<Entry>>(
      join(dataDir, 'auth.hot.json'),
      { items: [] },
      { log: captureLog().log, gate: new WriteGate(), coalesceMs: 60_000 },
    );
    const timeOf = (e: Entry) => {
      timeOfCalls += 1;
      return e.at;
    };
    const log = new BoundedLogStore<Entry>(doc, { max: 5000, maxAgeMs: 1000, timeOf }, () => now);
    for (let n = 0; n < 3000; n++) await log.append({ n, at: now });
    timeOfCalls = 0;
    await log.append({ n: -1, at: now - 5000 }); // out of time order: behind young entries
    await log.append({ n: 3000, at: now });
    expect(timeOfCalls).toBeLessThanOrEqual(4); // not 3,000 per append
    expect(log.items).toHaveLength(3002);
    await log.flush();
    const written = ((await readJson(join(dataDir, 'auth.hot.json'))) as LogFile<Entry>).items;
    expect(written).toHaveLength(3001);
    expect(written.some((e) => e.n === -1)).toBe(false);
    await doc.close();
  });

  it('refuses an age limit without a way to read an entry time', async () => {
    const { root } = await openRoot(dataDir);
    await expect(root.forOwner('auth').openLog<Entry>('bad', { max: 5, maxAgeMs: 1000 })).rejects.toThrow(
      /timeOf/,
    );
    await expect(root.forOwner('auth').openLog<Entry>('bad2', { max: 0 })).rejects.toThrow(/max/);
    await root.close();
  });
});
