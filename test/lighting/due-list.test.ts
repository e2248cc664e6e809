/**
 * DueList: the per-light reconciliation deadlines on one timer (plugins/lighting/domain/due-list.ts), on a
 * fake clock, checked to the millisecond.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DueList } from '../../plugins/lighting/domain/due-list.ts';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function rig(delay = 1000) {
  const fired: Array<[string, number]> = [];
  const list = new DueList<string, number>(delay, (k, v) => fired.push([k, v]));
  return { list, fired };
}

describe('DueList (reconciliation deadlines on one timer)', () => {
  it('fires each key its delay after it was set, and not a millisecond before', async () => {
    const { list, fired } = rig();
    list.set('a', 1);
    await vi.advanceTimersByTimeAsync(300);
    list.set('b', 2);
    await vi.advanceTimersByTimeAsync(699);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual([['a', 1]]);
    await vi.advanceTimersByTimeAsync(299);
    expect(fired).toEqual([['a', 1]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(list.size).toBe(0);
  });

  it('starts a key over when it is set again, with the newer value', async () => {
    const { list, fired } = rig();
    list.set('a', 1);
    list.set('b', 2);
    await vi.advanceTimersByTimeAsync(500);
    list.set('a', 3);
    await vi.advanceTimersByTimeAsync(500);
    expect(fired).toEqual([['b', 2]]);
    await vi.advanceTimersByTimeAsync(499);
    expect(fired).toEqual([['b', 2]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
  });

  it('never fires a deleted key, and fires the others on time', async () => {
    const { list, fired } = rig();
    list.set('a', 1);
    await vi.advanceTimersByTimeAsync(100);
    list.set('b', 2);
    list.delete('a');
    expect(list.has('a')).toBe(false);
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual([['b', 2]]);
  });

  it('a key set again while the deadlines are being fired waits its whole delay', async () => {
    const fired: string[] = [];
    const list: DueList<string, number> = new DueList(1000, (k) => {
      fired.push(k);
      if (fired.length === 1) list.set('again', 0);
    });
    list.set('a', 1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fired).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['a', 'again']);
  });

  it('clear() drops every deadline and its timer', async () => {
    const { list, fired } = rig();
    list.set('a', 1);
    list.clear();
    await vi.advanceTimersByTimeAsync(5000);
    expect(fired).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
