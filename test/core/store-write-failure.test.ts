import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStoreRoot } from '../../core/store/root.ts';
import type { WriteProblem } from '../../core/store/types.ts';
import { type BreakableDisk, breakableDisk } from './fixtures/full-disk.ts';
import { captureLog, openRoot } from './fixtures/store-helpers.ts';

let disk: BreakableDisk;

beforeEach(async () => {
  disk = await breakableDisk();
});
afterEach(async () => {
  vi.useRealTimers();
  await disk.cleanup();
});

interface Clients {
  clients: Array<{ id: string; name: string }>;
  byId: Record<string, { secretHash: string }>;
  counter: number;
}
const defaults = (): Clients => ({ clients: [], byId: {}, counter: 0 });

const onDisk = async (file: string) => JSON.parse(await readFile(join(disk.dir, file), 'utf8')) as Clients;

/** Real I/O still runs while timers are fake: poll with setImmediate (not faked) until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setImmediate(r));
  }
}

describe('a write that fails leaves nothing behind', () => {
  it('full disk: a failed commit is rolled back, not shown, and not saved by the next successful write', async () => {
    const { root } = await openRoot(disk.dir);
    const doc = await root.forOwner('auth').open('data', defaults());
    await doc.commit((d) => {
      d.clients.push({ id: 'a', name: 'kept' });
      d.byId.a = { secretHash: 'h-a' };
    });
    const keptClient = doc.data.clients[0];
    const versionBefore = doc.version;

    await disk.breakWrites();
    await expect(
      doc.commit((d) => {
        d.clients.push({ id: 'b', name: 'never shown' });
        d.byId.b = { secretHash: 'h-b' };
        d.counter += 1;
        (d.clients[0] as { name: string }).name = 'renamed';
      }),
    ).rejects.toMatchObject({ code: disk.mode });

    expect(doc.data).toEqual({
      clients: [{ id: 'a', name: 'kept' }],
      byId: { a: { secretHash: 'h-a' } },
      counter: 0,
    });
    // Objects that existed before keep their identity (plugins index them); caches see a new version.
    expect(doc.data.clients[0]).toBe(keptClient);
    expect(doc.version).toBeGreaterThan(versionBefore);

    await disk.heal();
    await doc.commit((d) => {
      d.counter = 5;
    });
    expect(await onDisk('auth.data.json')).toEqual({
      clients: [{ id: 'a', name: 'kept' }],
      byId: { a: { secretHash: 'h-a' } },
      counter: 5,
    });
    await root.close();

    const again = await openRoot(disk.dir);
    const reopened = await again.root.forOwner('auth').open('data', defaults());
    expect(reopened.data.byId).not.toHaveProperty('b');
    expect(reopened.data.clients.map((c) => c.id)).toEqual(['a']);
    await again.root.close();
  });

  it('a change that throws halfway is undone before the error reaches the caller', async () => {
    const { root } = await openRoot(disk.dir);
    const doc = await root.forOwner('auth').open('data', defaults());
    await expect(
      doc.commit((d) => {
        d.byId.x = { secretHash: 'half' };
        throw new Error('validation after a partial change');
      }),
    ).rejects.toThrow('validation');
    expect(doc.data.byId).toEqual({});
    await doc.commit((d) => {
      d.counter = 1;
    });
    expect((await onDisk('auth.data.json')).byId).toEqual({});
    await root.close();
  });

  it('coalesced updates made meanwhile survive the rollback of a failed commit and are written later', async () => {
    const { root } = await openRoot(disk.dir, 0);
    const doc = await root
      .forOwner('lighting')
      .open('state', { levels: {} as Record<string, number>, sites: [] as string[] });
    await doc.commit((d) => {
      d.sites.push('home');
    });
    await disk.breakWrites();
    const failing = doc.commit((d) => {
      d.sites.push('garage');
    });
    doc.update((d) => {
      d.levels.l1 = 80;
    });
    await expect(failing).rejects.toMatchObject({ code: disk.mode });
    expect(doc.data).toEqual({ levels: { l1: 80 }, sites: ['home'] });
    await disk.heal();
    await doc.flush();
    expect(JSON.parse(await readFile(join(disk.dir, 'lighting.state.json'), 'utf8'))).toEqual({
      levels: { l1: 80 },
      sites: ['home'],
    });
    await root.close();
  });

  it('a commit that arrives while a failing write is on the disk gets a write of its own', async () => {
    const { root } = await openRoot(disk.dir);
    const doc = await root.forOwner('core').open('keys', { keys: [] as string[] });
    await disk.breakWrites();
    const first = doc.commit((d) => {
      d.keys.push('first');
    });
    const second = doc.commit((d) => {
      d.keys.push('second');
    });
    const results = await Promise.allSettled([first, second]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(doc.data.keys).toEqual([]);
    await disk.heal();
    await doc.commit((d) => {
      d.keys.push('third');
    });
    expect(doc.data.keys).toEqual(['third']);
    await root.close();
  });
});

describe('a durable log append that fails', () => {
  it('is taken out again; entries appended without waiting stay and are written later', async () => {
    const { root } = await openRoot(disk.dir, 0);
    const log = await root.forOwner('auth').openLog<string>('revocations', { max: 100 });
    await log.append('kept', { durable: true });
    await disk.breakWrites();
    const failing = log.append('never acknowledged', { durable: true });
    await log.append('coalesced');
    await expect(failing).rejects.toMatchObject({ code: disk.mode });
    expect(log.items).toEqual(['kept', 'coalesced']);
    await disk.heal();
    await log.flush();
    expect(JSON.parse(await readFile(join(disk.dir, 'auth.revocations.json'), 'utf8'))).toEqual({
      items: ['kept', 'coalesced'],
    });
    await root.close();
  });
});

describe('disk health', () => {
  it('reports a full disk once in the log and through writeProblem, and clears it on the next good write', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const problems: Array<WriteProblem | null> = [];
    const capture = captureLog();
    const root = await createStoreRoot({
      dataDir: disk.dir,
      coalesceMs: 100,
      log: capture.log,
      onWriteProblem: (p) => problems.push(p),
    });
    const doc = await root.forOwner('lighting').open('state', { level: 0 });
    await disk.breakWrites();
    doc.update((d) => {
      d.level = 1;
    });
    // Each round: the retry timer fires, the write fails, the failure arms the next retry.
    for (let i = 0; i < 4; i++) {
      await until(() => vi.getTimerCount() > 0);
      await vi.advanceTimersByTimeAsync(1000);
      await until(() => vi.getTimerCount() > 0);
    }
    expect(root.writeProblem).toMatchObject({ code: disk.mode, files: ['lighting.state.json'] });
    if (disk.mode === 'ENOSPC') expect(root.writeProblem?.reason).toMatch(/disk is full/);
    expect(capture.lines.filter((l) => l.msg === 'store write failed; retrying')).toHaveLength(1);
    expect(problems).toHaveLength(1);

    await disk.heal();
    await until(() => vi.getTimerCount() > 0);
    await vi.advanceTimersByTimeAsync(1000);
    await until(() => root.writeProblem === null);
    expect(problems.at(-1)).toBeNull();
    expect(JSON.parse(await readFile(join(disk.dir, 'lighting.state.json'), 'utf8'))).toEqual({ level: 1 });
    vi.useRealTimers();
    await root.close();
  });

  it('a failed commit with nothing left to retry is cleared by the next good write of any file', async () => {
    const problems: Array<WriteProblem | null> = [];
    const { log } = captureLog();
    const root = await createStoreRoot({
      dataDir: disk.dir,
      coalesceMs: 50,
      log,
      onWriteProblem: (p) => problems.push(p),
    });
    const clients = await root.forOwner('auth').open('data', { n: 0 });
    const sites = await root.forOwner('lighting').open('sites', { n: 0 });
    await disk.breakWrites();
    await expect(
      clients.commit((d) => {
        d.n = 1;
      }),
    ).rejects.toBeDefined();
    expect(root.writeProblem?.files).toEqual(['auth.data.json']);
    await disk.heal();
    await sites.commit((d) => {
      d.n = 1;
    });
    expect(root.writeProblem).toBeNull();
    expect(problems.map((p) => p === null)).toEqual([false, true]);
    await root.close();
  });
});
