import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HueHttpError } from '../../drivers/hue/client.ts';
import { CommandLimiter, type TargetType } from '../../drivers/hue/limiter.ts';

interface Sent {
  at: number;
  type: TargetType;
  id: string;
  body: Record<string, unknown>;
}

/** A fake bridge: records start times; each request takes `latency` ms; answers from `answer`. */
function fakeSend(latency = 10, answer: (n: number) => number = () => 200) {
  const sent: Sent[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send = (type: TargetType, id: string, body: Record<string, unknown>) => {
    sent.push({ at: Date.now(), type, id, body });
    const status = answer(sent.length);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<void>((resolve, reject) =>
      setTimeout(() => {
        inFlight--;
        if (status === 200) resolve();
        else reject(new HueHttpError(status, 'PUT light', status === 503 ? 2000 : undefined));
      }, latency),
    );
  };
  return { sent, send, maxInFlight: () => maxInFlight };
}

describe('hue command limiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spaces light commands 100 ms apart (10/s) and group commands a second apart', async () => {
    const f = fakeSend();
    const lim = new CommandLimiter(f.send);
    const done = Promise.all([
      ...Array.from({ length: 12 }, (_, i) => lim.submit('light', `l${i}`, { on: { on: true } })),
      lim.submit('grouped_light', 'g', { on: { on: false } }),
      lim.submit('light', 'after-group', { on: { on: true } }),
    ]);
    await vi.runAllTimersAsync();
    await done;
    const gaps = f.sent.slice(1).map((s, i) => s.at - (f.sent[i] as Sent).at);
    expect(gaps.slice(0, 12)).toEqual(Array(12).fill(100));
    // The group command costs a whole second of the budget.
    expect(gaps[12]).toBe(1000);
    // In any one second at most 10 light commands went out.
    for (const s of f.sent)
      expect(f.sent.filter((x) => x.at >= s.at && x.at < s.at + 1000).length).toBeLessThanOrEqual(10);
  });

  it('never has more than three requests in flight, however slow the bridge', async () => {
    const f = fakeSend(1000);
    const lim = new CommandLimiter(f.send);
    const done = Promise.all(Array.from({ length: 20 }, (_, i) => lim.submit('light', `l${i}`, {})));
    await vi.runAllTimersAsync();
    await done;
    expect(f.sent).toHaveLength(20);
    expect(f.maxInFlight()).toBe(3);
  });

  it('merges a newer command for a light into the waiting one: latest wins, every caller resolves', async () => {
    const f = fakeSend();
    const lim = new CommandLimiter(f.send);
    const all: Array<Promise<void>> = [];
    // A slider drag: 50 positions for one light while 5 other lights wait their turn.
    for (let i = 0; i < 5; i++) all.push(lim.submit('light', `other${i}`, { on: { on: true } }));
    for (let b = 1; b <= 50; b++) all.push(lim.submit('light', 'slider', { dimming: { brightness: b } }));
    all.push(lim.submit('light', 'slider', { on: { on: true } }));
    await vi.runAllTimersAsync();
    await Promise.all(all);
    const slider = f.sent.filter((s) => s.id === 'slider');
    expect(slider).toHaveLength(1);
    expect(slider[0]?.body).toEqual({ dimming: { brightness: 50 }, on: { on: true } });
    expect(lim.stats.merged).toBe(50);
  });

  it('a colour temperature after an xy colour drops the xy (and the other way round)', async () => {
    const f = fakeSend();
    const lim = new CommandLimiter(f.send);
    const a = lim.submit('light', 'busy', {});
    const b = lim.submit('light', 'c', { color: { xy: { x: 0.2, y: 0.3 } } });
    const c = lim.submit('light', 'c', { color_temperature: { mirek: 300 } });
    await vi.runAllTimersAsync();
    await Promise.all([a, b, c]);
    expect(f.sent.find((s) => s.id === 'c')?.body).toEqual({ color_temperature: { mirek: 300 } });
  });

  it('backs off on 429 with a growing delay and on 503 for its Retry-After, then applies the command', async () => {
    const f = fakeSend(10, (n) => (n <= 2 ? 429 : n === 3 ? 503 : 200));
    const lim = new CommandLimiter(f.send);
    const p = lim.submit('light', 'x', { on: { on: true } });
    await vi.runAllTimersAsync();
    await p;
    expect(f.sent).toHaveLength(4);
    const t0 = (f.sent[0] as Sent).at;
    expect(f.sent.map((s) => s.at - t0)).toEqual([
      0,
      10 + 250,
      10 + 250 + 10 + 500,
      10 + 250 + 10 + 500 + 10 + 2000,
    ]);
    expect(lim.stats.retried).toBe(3);
  });

  it('gives up after the last attempt and rejects with the bridge answer (no key in it)', async () => {
    const f = fakeSend(10, () => 503);
    const lim = new CommandLimiter(f.send, { maxAttempts: 3 });
    const p = lim.submit('light', 'x', {});
    const caught = p.catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    const err = (await caught) as HueHttpError;
    expect(err).toBeInstanceOf(HueHttpError);
    expect(err.message).toBe('bridge answered 503 to PUT light');
    expect(f.sent).toHaveLength(3);
  });

  it('refuses waiting and new commands once closed', async () => {
    const f = fakeSend(1000);
    const lim = new CommandLimiter(f.send);
    const ps = Array.from({ length: 5 }, (_, i) =>
      lim.submit('light', `l${i}`, {}).catch((e: Error) => e.message),
    );
    lim.close();
    await vi.runAllTimersAsync();
    const results = await Promise.all(ps);
    expect(results.filter((r) => r === 'the Hue driver is stopped')).toHaveLength(4);
    await expect(lim.submit('light', 'x', {})).rejects.toThrow('stopped');
  });
});
