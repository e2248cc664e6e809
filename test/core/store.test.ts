import { access, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../core/store/errors.ts';
import { openRoot, readJson, tempDataDir } from './fixtures/store-helpers.ts';

let dataDir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir: dataDir, cleanup } = await tempDataDir());
});
afterEach(async () => {
  await cleanup();
});

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('store files', () => {
  it('starts from defaults, commits to <owner>.<name>.json and reads it back in a new root', async () => {
    const { root } = await openRoot(dataDir);
    const doc = await root.forOwner('lighting').open('sites', { sites: [] as string[], rev: 0 });
    expect(doc.data).toEqual({ sites: [], rev: 0 });
    await doc.commit((d) => {
      d.sites.push('kitchen');
      d.rev = 1;
    });
    const file = join(dataDir, 'lighting.sites.json');
    expect(await readJson(file)).toEqual({ sites: ['kitchen'], rev: 1 });
    await root.close();

    const again = await openRoot(dataDir);
    const reopened = await again.root.forOwner('lighting').open('sites', { sites: [] as string[], rev: 0 });
    expect(reopened.data).toEqual({ sites: ['kitchen'], rev: 1 });
    await again.root.close();
  });

  it('keeps the previous good file as .bak, never sharing the inode of the live file', async () => {
    const { root } = await openRoot(dataDir);
    const doc = await root.forOwner('core').open('settings', { n: 0 });
    await doc.commit((d) => Object.assign(d, { n: 1 }));
    await doc.commit((d) => Object.assign(d, { n: 2 }));
    const file = join(dataDir, 'core.settings.json');
    expect(await readJson(file)).toEqual({ n: 2 });
    expect(await readJson(`${file}.bak`)).toEqual({ n: 1 });
    expect((await stat(file)).ino).not.toBe((await stat(`${file}.bak`)).ino);
    await root.close();
  });

  it('fills top-level keys that an older file lacks from the defaults', async () => {
    await writeFile(join(dataDir, 'core.settings.json'), JSON.stringify({ a: 1 }));
    const { root } = await openRoot(dataDir);
    const doc = await root.forOwner('core').open('settings', { a: 0, b: 'new' });
    expect(doc.data).toEqual({ a: 1, b: 'new' });
    await root.close();
  });

  it('gives one store object per file: the same instance in a root, refused to another root', async () => {
    const first = await openRoot(dataDir);
    const [a, b] = await Promise.all([
      first.root.forOwner('core').open('x', { v: 1 }),
      first.root.forOwner('core').open('x', { v: 1 }),
    ]);
    expect(a).toBe(b);
    await expect(first.root.forOwner('core').openLog('x', { max: 5 })).rejects.toMatchObject({
      code: 'store_in_use',
    });

    const second = await openRoot(dataDir);
    await expect(second.root.forOwner('core').open('x', { v: 1 })).rejects.toMatchObject({
      code: 'store_in_use',
    });
    await first.root.close();
    const c = await second.root.forOwner('core').open('x', { v: 1 });
    expect(c).not.toBe(a);
    await second.root.close();
  });

  it('refuses owner and file names that could escape the naming scheme', async () => {
    const { root } = await openRoot(dataDir);
    expect(() => root.forOwner('a.b')).toThrow(StoreError);
    await expect(root.forOwner('core').open('../etc', {})).rejects.toMatchObject({ code: 'store_bad_name' });
    await expect(root.forOwner('core').open('x.y', {})).rejects.toMatchObject({ code: 'store_bad_name' });
    await root.close();
  });

  it('dir() gives <dataDir>/<owner>/, created on demand', async () => {
    const { root } = await openRoot(dataDir);
    const dir = await root.forOwner('auth').dir();
    expect(dir).toBe(join(dataDir, 'auth'));
    expect((await stat(dir)).isDirectory()).toBe(true);
    await root.close();
  });
});

describe('writes', () => {
  it('lands every concurrent commit from many callers, in call order, with far fewer writes', async () => {
    const { root, writes } = await openRoot(dataDir);
    const doc = await root.forOwner('core').open('log', { order: [] as number[] });
    const callers = 200;
    const waves: Promise<void>[] = [];
    for (let i = 0; i < callers; i++) {
      waves.push(doc.commit((d) => void d.order.push(i)));
      // Let some writes start mid-stream so later commits join an in-flight write.
      if (i % 40 === 39) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(waves);
    const expected = Array.from({ length: callers }, (_, i) => i);
    expect(await readJson(join(dataDir, 'core.log.json'))).toEqual({ order: expected });
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.length).toBeLessThan(callers / 10);
    await root.close();
  });

  it('resolves a commit only once its change is on disk, even when a write was in flight', async () => {
    const { root } = await openRoot(dataDir);
    const doc = await root.forOwner('core').open('n', { n: 0 });
    const file = join(dataDir, 'core.n.json');
    const first = doc.commit((d) => Object.assign(d, { n: 1 }));
    await new Promise((r) => setImmediate(r));
    const second = doc.commit((d) => Object.assign(d, { n: 2 }));
    await first;
    await second;
    expect(await readJson(file)).toEqual({ n: 2 });
    await root.close();
  });

  it('coalesces update() calls: nothing is written inside the window, one write serves them all', async () => {
    const { root, writes } = await openRoot(dataDir, 60_000);
    const doc = await root.forOwner('lighting').open('levels', { level: 0 });
    for (let i = 1; i <= 1000; i++) {
      doc.update((d) => Object.assign(d, { level: i }));
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(writes).toEqual([]);
    expect(await exists(join(dataDir, 'lighting.levels.json'))).toBe(false);
    await doc.flush();
    expect(writes).toEqual(['lighting.levels.json']);
    expect(await readJson(join(dataDir, 'lighting.levels.json'))).toEqual({ level: 1000 });
    await root.close();
  });

  it('bumps version on every update and commit, and on nothing else', async () => {
    const { root } = await openRoot(dataDir, 60_000);
    const doc = await root.forOwner('lighting').open('levels', { level: 0 });
    const v0 = doc.version;
    doc.update((d) => Object.assign(d, { level: 1 }));
    expect(doc.version).toBe(v0 + 1);
    await doc.commit((d) => Object.assign(d, { level: 2 }));
    expect(doc.version).toBe(v0 + 2);
    await doc.flush();
    expect(doc.version).toBe(v0 + 2);
    await root.close();
  });

  it('writes a coalesced update by itself once the window has passed', async () => {
    const { root, writes } = await openRoot(dataDir, 1000);
    const doc = await root.forOwner('lighting').open('levels', { level: 0 });
    // The window's timer is fake; the write itself is real I/O, polled for with setImmediate (not faked).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      doc.update((d) => Object.assign(d, { level: 7 }));
      await vi.advanceTimersByTimeAsync(999);
      expect(writes).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      for (let spins = 0; writes.length === 0; spins++) {
        if (spins > 100_000) throw new Error('the write never came');
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      vi.useRealTimers();
    }
    expect(await readJson(join(dataDir, 'lighting.levels.json'))).toEqual({ level: 7 });
    await root.close();
  });

  it('close() flushes pending updates and then refuses writes and opens', async () => {
    const { root } = await openRoot(dataDir, 60_000);
    const doc = await root.forOwner('core').open('c', { v: 0 });
    doc.update((d) => Object.assign(d, { v: 5 }));
    await root.close();
    expect(await readJson(join(dataDir, 'core.c.json'))).toEqual({ v: 5 });
    expect(() => doc.update((d) => Object.assign(d, { v: 6 }))).toThrow(
      expect.objectContaining({ code: 'store_closed' }),
    );
    await expect(doc.commit((d) => Object.assign(d, { v: 6 }))).rejects.toMatchObject({
      code: 'store_closed',
    });
    await expect(root.forOwner('core').open('other', {})).rejects.toMatchObject({ code: 'store_closed' });
    expect(doc.data).toEqual({ v: 5 });
    await root.close();
  });

  it('withWritesPaused flushes first, then holds writes back until the backup is done', async () => {
    const { root } = await openRoot(dataDir, 60_000);
    const doc = await root.forOwner('core').open('p', { v: 0 });
    const file = join(dataDir, 'core.p.json');
    doc.update((d) => Object.assign(d, { v: 1 }));
    let committed = false;
    let pending: Promise<void> | undefined;
    const seen = await root.withWritesPaused(async () => {
      const before = await readFile(file, 'utf8');
      pending = doc
        .commit((d) => Object.assign(d, { v: 2 }))
        .then(() => {
          committed = true;
        });
      await new Promise((r) => setTimeout(r, 100));
      return { before, during: await readFile(file, 'utf8'), committed };
    });
    expect(JSON.parse(seen.before)).toEqual({ v: 1 });
    expect(seen.during).toBe(seen.before);
    expect(seen.committed).toBe(false);
    await pending;
    expect(await readJson(file)).toEqual({ v: 2 });
    await root.close();
  });
});

describe('write failures', () => {
  it('rejects and undoes the failed commit, keeps coalesced updates and writes them once the disk is back', async () => {
    const { root, writes, lines } = await openRoot(dataDir, 10);
    const doc = await root.forOwner('core').open('w', { a: 0, b: 0 });
    await rm(dataDir, { recursive: true, force: true });

    await expect(doc.commit((d) => Object.assign(d, { a: 1 }))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(doc.data.a).toBe(0);
    doc.update((d) => Object.assign(d, { b: 2 }));
    while (!lines.some((l) => l.msg === 'store write failed; retrying'))
      await new Promise((r) => setTimeout(r, 5));

    await mkdir(dataDir);
    while (writes.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(await readJson(join(dataDir, 'core.w.json'))).toEqual({ a: 0, b: 2 });
    const failure = lines.find((l) => l.msg === 'store write failed; retrying');
    expect(failure).toMatchObject({ level: 50, file: 'core.w.json' });
    await root.close();
  });
});
