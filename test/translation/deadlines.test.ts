/**
 * The upstream time bounds behind one timer (engines/deadlines.ts): each bound fires at its own duration,
 * a cancelled one never fires, and however many requests are in flight, or come one after another, the
 * bounds of one duration use a single Node timer (fake timers).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../plugins/translation/engines/deadlines.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('upstream deadlines', () => {
  it('fire at their duration, not a millisecond before', async () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    new Deadlines().after(4000, fired);
    await vi.advanceTimersByTimeAsync(3999);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('each fire at their own deadline when set at different times', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines();
    const order: string[] = [];
    deadlines.after(1000, () => order.push('first'));
    await vi.advanceTimersByTimeAsync(400);
    deadlines.after(1000, () => order.push('second'));
    await vi.advanceTimersByTimeAsync(600);
    expect(order).toEqual(['first']);
    await vi.advanceTimersByTimeAsync(399);
    expect(order).toEqual(['first']);
    await vi.advanceTimersByTimeAsync(1);
    expect(order).toEqual(['first', 'second']);
  });

  it('never fire once cancelled, also when an earlier one is cancelled and a later one is due', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines();
    const first = vi.fn();
    const second = vi.fn();
    const a = deadlines.after(1000, first);
    await vi.advanceTimersByTimeAsync(300);
    deadlines.after(1000, second);
    a.cancel();
    await vi.advanceTimersByTimeAsync(1000);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('use one timer for every in-flight bound of a duration and arm none per request in the steady state', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines();
    const fired = vi.fn();
    const inFlight = Array.from({ length: 50 }, () => deadlines.after(4000, fired));
    expect(vi.getTimerCount()).toBe(1);
    for (const d of inFlight) d.cancel();
    // One client, one request after another: set, cancel, set, cancel…
    for (let i = 0; i < 100; i++) {
      await vi.advanceTimersByTimeAsync(1);
      deadlines.after(4000, fired).cancel();
      expect(vi.getTimerCount()).toBe(1);
    }
    // The armed timer fires once, finds nothing due, and stops.
    await vi.advanceTimersByTimeAsync(4000);
    expect(vi.getTimerCount()).toBe(0);
    expect(fired).not.toHaveBeenCalled();
  });

  it('keep the other bounds running when one callback throws', async () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines();
    const after = vi.fn();
    const thrown: unknown[] = [];
    const onError = (err: unknown) => thrown.push(err);
    process.on('uncaughtException', onError);
    try {
      deadlines.after(100, () => {
        throw new Error('boom');
      });
      deadlines.after(100, after);
      await vi.advanceTimersByTimeAsync(100);
      expect(after).toHaveBeenCalledTimes(1);
      expect(thrown.map((e) => (e as Error).message)).toEqual(['boom']);
    } finally {
      process.off('uncaughtException', onError);
    }
  });
});
