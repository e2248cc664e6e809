/**
 * The driver's own timers on fake timers with an in-memory stick: the liveness ping period, a stick that
 * stops answering reported down after the ping's timeout, and reopening every `reconnectMs` until the stick
 * is back. No real sleeps: every bound is checked to the millisecond on the fake clock.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryStateStore } from '../../drivers/zigbee/device.ts';
import { createZigbeeDriverFactory, type ZigbeeDriver } from '../../drivers/zigbee/driver.ts';
import { decodeMt, type MtName, mtFrame, NV } from '../../drivers/zigbee/znp/mt.ts';
import { FrameType, UnpiParser } from '../../drivers/zigbee/znp/unpi.ts';
import { RecordingSink } from '../drivers/conformance.ts';
import { FakeTransport } from './fake-transport.ts';

const NETWORK = {
  panId: 0x1234,
  extendedPanId: 'dddddddddddddddd',
  networkKey: '01'.repeat(16),
  channel: 11,
};

/** A stick that carries NETWORK and answers what start-up and the liveness ping ask; `silent` stops it. */
function fakeStick() {
  const t = new FakeTransport();
  const state = { silent: false };
  const seen: Array<{ name: MtName; at: number }> = [];
  const answers: Partial<Record<MtName, Record<string, unknown>>> = {
    sysPing: { capabilities: 1 },
    sysVersion: { transportRev: 2, product: 1, major: 2, minor: 7, maint: 1 },
    utilGetDeviceInfo: {
      status: 0,
      ieee: '0x00124b0099887766',
      nwkAddr: 0,
      deviceType: 7,
      deviceState: 9,
      assoc: [],
    },
    afRegister: { status: 0 },
  };
  const parser = new UnpiParser((f) => {
    const m = decodeMt(f);
    if (!m || f.type !== FrameType.SREQ) return;
    seen.push({ name: m.name, at: Date.now() });
    if (state.silent) return;
    queueMicrotask(() => {
      if (m.name === 'sysOsalNvRead') {
        const value =
          m.fields.id === NV.PANID ? Buffer.from([0x34, 0x12]) : Buffer.from(NETWORK.extendedPanId, 'hex');
        t.feed(mtFrame('sysOsalNvRead', { status: 0, value }, true));
        return;
      }
      t.feed(mtFrame(m.name, (answers[m.name] ?? { status: 0 }) as never, true));
    });
  });
  t.onWrite = (b) => parser.push(b);
  return { t, state, seen };
}

async function startDriver(opens: Array<() => FakeTransport | Error>) {
  const store = memoryStateStore();
  await store.setNetwork(NETWORK);
  const sink = new RecordingSink();
  const opened: number[] = [];
  const driver = createZigbeeDriverFactory({
    store,
    openTransport: async () => {
      opened.push(Date.now());
      const next = opens.shift()?.() ?? new Error('no stick');
      if (next instanceof Error) throw next;
      return next;
    },
  })({
    id: 'zb',
    options: { path: '/dev/fake', livenessMs: 15_000, reconnectMs: 5000 },
    sink,
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  }) as ZigbeeDriver;
  await driver.start();
  return { driver, sink, opened };
}

const connections = (sink: RecordingSink) =>
  sink.reports.flatMap((r) => (r.kind === 'connection' ? [r.status.connected] : []));

describe('zigbee driver timers', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('pings the stick every livenessMs, and nothing in between', async () => {
    const stick = fakeStick();
    const { driver } = await startDriver([() => stick.t]);
    expect(driver.connection().connected).toBe(true);
    const t0 = Date.now();
    const pings = () => stick.seen.filter((s) => s.name === 'sysPing' && s.at > t0).map((s) => s.at - t0);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(pings()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(pings()).toEqual([15_000]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(pings()).toEqual([15_000, 30_000, 45_000]);
    expect(driver.connection().connected).toBe(true);
    await driver.stop();
  });

  it('a stick that stops answering is down when the ping times out, then reopened every reconnectMs until it is back', async () => {
    const first = fakeStick();
    const second = fakeStick();
    const { driver, sink, opened } = await startDriver([
      () => first.t,
      () => new Error('ENOENT'),
      () => new Error('ENOENT'),
      () => second.t,
    ]);
    const t0 = Date.now();
    first.state.silent = true; // a vanished PTY or USB stick: no close event, just silence
    await vi.advanceTimersByTimeAsync(15_000 + 1999);
    expect(driver.connection().connected).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(driver.connection().connected).toBe(false);
    expect(connections(sink)).toEqual([true, false]);
    const down = Date.now();
    expect(down - t0).toBe(17_000);

    // Reopen attempts at +5 s, +10 s (both fail), +15 s (the stick is back).
    await vi.advanceTimersByTimeAsync(4999);
    expect(opened.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(opened.length).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(opened.map((at) => at - down)).toEqual([-17_000, 5000, 10_000, 15_000]);
    expect(driver.connection().connected).toBe(true);
    expect(connections(sink)).toEqual([true, false, true]);
    // Resumed the stored network: no NV write, start-up from the stick's own state.
    expect(second.seen.some((s) => s.name === 'sysOsalNvWrite')).toBe(false);

    // And the liveness ping runs on the new link.
    const t1 = Date.now();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(second.seen.filter((s) => s.name === 'sysPing' && s.at > t1).map((s) => s.at - t1)).toEqual([
      15_000,
    ]);
    await driver.stop();
  });

  it('stop() clears the reconnect timer: no reopening after a stop', async () => {
    const { driver, opened } = await startDriver([() => new Error('ENOENT')]);
    expect(driver.connection().connected).toBe(false);
    await vi.advanceTimersByTimeAsync(5000);
    expect(opened.length).toBe(2);
    await driver.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(opened.length).toBe(2);
  });
});
