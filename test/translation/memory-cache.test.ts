import { describe, expect, it } from 'vitest';
import { LoadedCache } from '../../plugins/translation/memories/loaded-cache.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('loaded memories', () => {
  it('keeps at most the given number, evicting the least recently used', async () => {
    const cache = new LoadedCache<string>(2, 1000, (v) => v.length);
    cache.set('a', Promise.resolve('aa'));
    cache.set('b', Promise.resolve('bb'));
    await settle();
    cache.get('a'); // now b is the least recently used
    cache.set('c', Promise.resolve('cc'));
    await settle();
    expect(cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toBe('aa');
    expect(await cache.get('c')).toBe('cc');
    expect(cache.size).toBe(4);
  });

  it('keeps the characters held under the bound, but always the memory just loaded', async () => {
    const cache = new LoadedCache<string>(8, 10, (v) => v.length);
    cache.set('a', Promise.resolve('aaaa'));
    cache.set('b', Promise.resolve('bbbb'));
    await settle();
    expect(cache.count).toBe(2);
    cache.set('big', Promise.resolve('x'.repeat(25)));
    await settle();
    expect(cache.count).toBe(1);
    expect(cache.size).toBe(25);
    expect(await cache.get('big')).toHaveLength(25);
    cache.set('small', Promise.resolve('s'));
    await settle();
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('forgets a load that failed, and a deleted memory gives its characters back', async () => {
    const cache = new LoadedCache<string>(8, 100, (v) => v.length);
    const failed = Promise.reject(new Error('unreadable'));
    failed.catch(() => {});
    cache.set('bad', failed);
    cache.set('ok', Promise.resolve('12345'));
    await settle();
    expect(cache.get('bad')).toBeUndefined();
    expect(cache.size).toBe(5);
    cache.delete('ok');
    expect(cache.size).toBe(0);
    expect(cache.count).toBe(0);
  });
});
