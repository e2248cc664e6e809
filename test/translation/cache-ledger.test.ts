import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStoreRoot } from '../../core/store/root.ts';
import {
  characterCount,
  dayOf,
  MAX_TAGS_PER_DAY,
  OTHER_TAGS,
  RETENTION_DAYS,
  UsageLedger,
} from '../../plugins/translation/accounting/usage-ledger.ts';
import { TranslationCache } from '../../plugins/translation/cache.ts';

const entry = (text: string, at = 0) => ({ text, detectedSource: 'EN', modelTypeUsed: null, at });

describe('translation cache', () => {
  it('evicts the least recently used entry and expires old ones', () => {
    const cache = new TranslationCache(2, 1000);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    expect(cache.get('a', 10)?.text).toBe('A'); // a is now the most recent
    cache.set('c', entry('C'));
    expect(cache.get('b', 10)).toBeUndefined();
    expect(cache.get('a', 10)?.text).toBe('A');
    expect(cache.get('c', 1001)).toBeUndefined(); // older than the lifetime
    expect(cache.size).toBe(1);
    const small = new TranslationCache(100, 1000, 600);
    for (const k of ['k1', 'k2', 'k3', 'k4']) small.set(k, entry('x'.repeat(60))); // (2 + 60) × 2 = 124 bytes each
    expect(small.get('k1', 10)?.text).toHaveLength(60); // 496 bytes: all fit; k1 is now the most recent
    small.set('k5', entry('y'.repeat(60))); // 620 bytes > 600: the least recently used (k2) goes
    expect(small.get('k2', 10)).toBeUndefined();
    expect(small.get('k1', 10)?.text).toHaveLength(60);
    expect(small.get('k5', 10)?.text).toHaveLength(60);
    small.set('big', entry('b'.repeat(100))); // over a quarter of the budget: not cached
    expect(small.get('big', 10)).toBeUndefined();
    const off = new TranslationCache(0, 1000);
    off.set('a', entry('A'));
    expect(off.get('a')).toBeUndefined();
  });
});

describe('usage ledger', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('counts code points, not UTF-16 units', () => {
    expect(characterCount('Grüße 👋')).toBe(7);
    expect(characterCount('')).toBe(0);
  });

  it('reserves against the limit, records once, releases on failure, and persists by day and tag', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-ledger-'));
    dirs.push(dir);
    const root = await createStoreRoot({ dataDir: dir, coalesceMs: 10, log: pino({ level: 'silent' }) });
    const ledger = await UsageLedger.open(root.forOwner('translation'));
    expect(ledger.reserve('key:a', 6, 10)).toBe(true);
    expect(ledger.reserve('key:a', 5, 10)).toBe(false); // the pending 6 count too
    ledger.release('key:a', 6);
    expect(ledger.reserve('key:a', 10, 10)).toBe(true);
    ledger.record('key:a', 'oven', 10);
    expect(ledger.used('key:a')).toBe(10);
    expect(ledger.reserve('key:a', 1, 10)).toBe(false); // at the limit
    expect(ledger.reserve('key:a', 1, null)).toBe(true); // unlimited
    expect(ledger.reserve('key:b', 1, 0)).toBe(false); // 0 blocks
    await ledger.flush();
    await root.close();
    const file = JSON.parse(readFileSync(path.join(dir, 'translation.usage.json'), 'utf8'));
    const today = new Date().toISOString().slice(0, 10);
    expect(file.days[today]).toEqual({ 'key:a': { oven: 10 } });
  });

  it('writes usage coalesced, never once per request', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-ledger-'));
    dirs.push(dir);
    const writes: string[] = [];
    const root = await createStoreRoot({
      dataDir: dir,
      coalesceMs: 60_000,
      log: pino({ level: 'silent' }),
      onWrite: ({ file }) => writes.push(file),
    });
    const ledger = await UsageLedger.open(root.forOwner('translation'));
    // The coalescing window runs on a fake clock: right up to its end, 100 requests have written nothing.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let i = 0; i < 100; i++) ledger.record('key:a', '', 1);
      await vi.advanceTimersByTimeAsync(59_999);
      expect(writes).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    const file = path.join(dir, 'translation.usage.json');
    const today = new Date().toISOString().slice(0, 10);
    await ledger.flush();
    expect(writes).toEqual(['translation.usage.json']);
    expect(JSON.parse(readFileSync(file, 'utf8')).days[today]).toEqual({ 'key:a': { '': 100 } });
    await root.close();
  });

  it('bounds client-chosen tags per day and drops days past the retention', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-ledger-'));
    dirs.push(dir);
    const root = await createStoreRoot({ dataDir: dir, coalesceMs: 10, log: pino({ level: 'silent' }) });
    const ledger = await UsageLedger.open(root.forOwner('translation'));
    const today = new Date().toISOString().slice(0, 10);
    const daysAgo = (n: number) => new Date(Date.parse(`${today}T12:00:00Z`) - n * 86_400_000);
    ledger.record('key:a', '', 5, daysAgo(RETENTION_DAYS + 1));
    ledger.record('key:a', '', 7, daysAgo(RETENTION_DAYS));
    for (let i = 0; i < MAX_TAGS_PER_DAY + 5; i++) ledger.record('key:a', `tag${i}`, 1);
    const tags = ledger.days[today]?.['key:a'] ?? {};
    expect(Object.keys(tags)).toHaveLength(MAX_TAGS_PER_DAY + 1);
    expect(tags[OTHER_TAGS]).toBe(5);
    expect(tags.tag0).toBe(1);
    await ledger.flush();
    await root.close();
    // Reopened "today" (the clock is the ledger's `now` argument): the day RETENTION_DAYS back is the oldest
    // kept, the one before it is gone.
    const root2 = await createStoreRoot({ dataDir: dir, coalesceMs: 10, log: pino({ level: 'silent' }) });
    const reopened = await UsageLedger.open(root2.forOwner('translation'), daysAgo(0));
    expect(Object.keys(reopened.days).sort()).toEqual([dayOf(daysAgo(RETENTION_DAYS)), today]);
    expect(reopened.used('key:a')).toBe(MAX_TAGS_PER_DAY + 5);
    await root2.close();
  });
});
