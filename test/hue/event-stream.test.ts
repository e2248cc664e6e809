import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventStreamReader, type HueEvent } from '../../drivers/hue/events.ts';

describe('hue event stream reader', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a silent stream whose reopening fails reports the link down and backs off', async () => {
    let n = 0;
    const streams: PassThrough[] = [];
    const downs: string[] = [];
    const reader = new EventStreamReader({
      open: async () => {
        if (n++ > 0) throw new Error('connect ETIMEDOUT');
        const s = new PassThrough();
        streams.push(s);
        return s as unknown as IncomingMessage;
      },
      onUp: async () => {},
      onDown: (r) => downs.push(r),
      onEvents: () => {},
      readTimeoutMs: 1000,
    });
    await reader.start();
    await vi.advanceTimersByTimeAsync(1001);
    expect(downs).toEqual(['connect ETIMEDOUT']);
    await vi.advanceTimersByTimeAsync(2000);
    expect(n).toBe(3);
    reader.stop();
  });

  it('retries an unreachable bridge after min(2·attempt, 600) s and reports down once', async () => {
    const opens: number[] = [];
    const downs: string[] = [];
    const reader = new EventStreamReader({
      open: async () => {
        opens.push(Date.now());
        throw new Error('connect ECONNREFUSED');
      },
      onUp: async () => {},
      onDown: (r) => downs.push(r),
      onEvents: () => {},
    });
    await reader.start();
    // 2 + 4 + … + 600 s is 25 hours of retries: run a bit more than that.
    for (let h = 0; h < 27; h++) await vi.advanceTimersByTimeAsync(3_600_000);
    reader.stop();
    const gaps = opens.slice(1).map((t, i) => (t - (opens[i] as number)) / 1000);
    expect(gaps.slice(0, 4)).toEqual([2, 4, 6, 8]);
    expect(Math.max(...gaps)).toBe(600);
    expect(downs).toEqual(['connect ECONNREFUSED']);
  });

  it('a stream silent for the read timeout is reopened at once, resynced, and the link is not reported down', async () => {
    const streams: PassThrough[] = [];
    const events: HueEvent[] = [];
    let ups = 0;
    const downs: string[] = [];
    const reader = new EventStreamReader({
      open: async () => {
        const s = new PassThrough();
        streams.push(s);
        return s as unknown as IncomingMessage;
      },
      onUp: async () => {
        ups++;
      },
      onDown: (r) => downs.push(r),
      onEvents: (e) => events.push(...e),
      readTimeoutMs: 90_000,
    });
    await reader.start();
    const s = streams[0] as PassThrough;
    s.write('id: 1:0\ndata: [{"type":"update","data":[{"id":"a","type":"light","on":{"on":true}}]}]\n');
    s.write('\n');
    await vi.advanceTimersByTimeAsync(80_000);
    expect(events).toHaveLength(1);
    // Data resets the timer: 80 s more is still within 90 s of the last byte.
    s.write(': comment\n\n');
    await vi.advanceTimersByTimeAsync(80_000);
    expect(streams).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_001);
    expect(streams).toHaveLength(2);
    expect(ups).toBe(2);
    expect(downs).toEqual([]);
    expect(reader.stats.timeouts).toBe(1);
    reader.stop();
  });
});
