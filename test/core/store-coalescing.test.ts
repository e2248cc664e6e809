import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openRoot, tempDataDir } from './fixtures/store-helpers.ts';

let dataDir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: dataDir, cleanup } = await tempDataDir());
});
afterEach(async () => {
  vi.useRealTimers();
  await cleanup();
});

/** Real I/O runs while timers are fake: poll with setImmediate (not faked) until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setImmediate(r));
  }
}

describe('the promise for coalesced state', () => {
  it('a steady stream of updates is on disk at most one window behind, never later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const windowMs = 1000;
    const { root, writes } = await openRoot(dataDir, windowMs);
    const doc = await root.forOwner('lighting').open('state', { level: 0 });
    const file = join(dataDir, 'lighting.state.json');
    const stepMs = 100;
    for (let t = 1; t <= 50; t++) {
      doc.update((d) => {
        d.level = t;
      });
      const before = writes.length;
      await vi.advanceTimersByTimeAsync(stepMs);
      // A window closes every 10 steps: its write lands before the stream goes on.
      if (t % (windowMs / stepMs) === 0) await until(() => writes.length > before);
      if (writes.length > 0) {
        const onDisk = JSON.parse(await readFile(file, 'utf8')) as { level: number };
        expect(t - onDisk.level).toBeLessThan(windowMs / stepMs);
      }
    }
    expect(writes.length).toBe(5);
    vi.useRealTimers();
    await root.close();
  });
});
