/**
 * Reconciliation of a light that does not report (docs/lighting.md#desired-and-reported-state), on a fake
 * clock: LightControl with a driver whose device stays silent, and stand-ins for the catalog, the state
 * document and the live sockets. The window is checked to the millisecond, with no sleeping.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DocStore } from '../../core/store/types.ts';
import type { LightingDriver, LightLevel } from '../../drivers/lighting/index.ts';
import type { Catalog } from '../../plugins/lighting/catalog.ts';
import type { DriverHost, DriverInstance } from '../../plugins/lighting/drivers-host.ts';
import { LightControl } from '../../plugins/lighting/light-control.ts';
import type { Live } from '../../plugins/lighting/live.ts';
import type { LightRecord, StateDoc } from '../../plugins/lighting/types.ts';

const RECONCILE_MS = 2000;
const lamp: LightRecord = {
  _id: 'lamp',
  siteid: 'home',
  name: 'Lamp',
  type: 'dimmable',
  vendor: 'test',
  protocolid: 'L',
  subdef: null,
};

function rig(opts: { readable: boolean }) {
  const device: { level: LightLevel | null } = { level: null };
  const reads: string[] = [];
  const sent: LightLevel[] = [];
  // Only what LightControl calls; the rest of each interface is not needed here.
  const driver = {
    async setState(_protocolid: string, level: LightLevel) {
      sent.push(level);
    },
    ...(opts.readable
      ? {
          async readState(protocolid: string) {
            reads.push(protocolid);
            return device.level;
          },
        }
      : {}),
  } as unknown as LightingDriver;
  const inst = { id: 'test-1', type: 'test', siteId: 'home', driver } as unknown as DriverInstance;
  const doc = { data: { levels: {} } as StateDoc, update: (fn: (d: StateDoc) => void) => fn(doc.data) };
  const pushed: unknown[] = [];
  const control = new LightControl({
    catalog: { data: { lights: [lamp] }, lightsWithProtocolId: () => [lamp] } as unknown as Catalog,
    state: doc as unknown as DocStore<StateDoc>,
    drivers: { driverFor: () => inst, serves: () => true } as unknown as DriverHost,
    live: {
      count: () => 1,
      publish: (_s: string, _c: string, d: unknown) => pushed.push(d),
    } as unknown as Live,
    reconcileMs: RECONCILE_MS,
    commandTimeoutMs: 5000,
    log: pino({ level: 'silent' }),
  });
  const reported = () => control.entry(lamp._id).reported;
  return { control, inst, device, reads, sent, pushed, reported };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('reconciliation of a silent light', () => {
  it('reads the device back once the window has passed, and not a millisecond before', async () => {
    const r = rig({ readable: true });
    r.device.level = { on: true, bri: 28 }; // the bulb rounds to its own steps
    await r.control.set(lamp, { on: true, bri: 30 }).handed;
    expect(r.sent).toEqual([{ on: true, bri: 30 }]);
    await vi.advanceTimersByTimeAsync(RECONCILE_MS - 1);
    expect([r.reads, r.reported(), r.pushed]).toEqual([[], { on: false, bri: 0 }, []]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.reads).toEqual(['L']);
    expect(r.reported()).toEqual({ on: true, bri: 28 });
    expect(r.pushed).toMatchObject([{ _id: 'lamp', on: true, bri: 28 }]);
    r.control.stop();
  });

  it('assumes the commanded level when the driver cannot read', async () => {
    const r = rig({ readable: false });
    await r.control.set(lamp, { on: true, bri: 31 }).handed;
    await vi.advanceTimersByTimeAsync(RECONCILE_MS - 1);
    expect(r.reported()).toEqual({ on: false, bri: 0 });
    await vi.advanceTimersByTimeAsync(1);
    expect(r.reported()).toEqual({ on: true, bri: 31 });
    r.control.stop();
  });

  it('counts the window from the latest command', async () => {
    const r = rig({ readable: false });
    await r.control.set(lamp, { on: true, bri: 10 }).handed;
    await vi.advanceTimersByTimeAsync(RECONCILE_MS / 2);
    await r.control.set(lamp, { on: true, bri: 20 }).handed;
    await vi.advanceTimersByTimeAsync(RECONCILE_MS - 1);
    expect(r.reported()).toEqual({ on: false, bri: 0 });
    await vi.advanceTimersByTimeAsync(1);
    expect(r.reported()).toEqual({ on: true, bri: 20 });
    r.control.stop();
  });

  it('keeps a prompt report that differs from the command: no stale reconciliation overwrites it', async () => {
    const r = rig({ readable: false });
    await r.control.set(lamp, { on: true, bri: 40 }).handed;
    await vi.advanceTimersByTimeAsync(RECONCILE_MS / 2);
    r.control.report(r.inst, 'L', { on: true, bri: 38 });
    expect(r.reported()).toEqual({ on: true, bri: 38 });
    await vi.advanceTimersByTimeAsync(10 * RECONCILE_MS);
    expect(r.reported()).toEqual({ on: true, bri: 38 });
    expect(r.pushed).toHaveLength(1);
    r.control.stop();
  });

  it('a reconciliation read that answers after a newer report does not overwrite it with its older level', async () => {
    const r = rig({ readable: true });
    let answer: (level: LightLevel | null) => void = () => {};
    (r.inst.driver as unknown as { readState: () => Promise<LightLevel | null> }).readState = () =>
      new Promise((resolve) => {
        answer = resolve;
      });
    await r.control.set(lamp, { on: true, bri: 30 }).handed;
    await vi.advanceTimersByTimeAsync(RECONCILE_MS); // the read goes out and waits for the device
    r.control.report(r.inst, 'L', { on: false, bri: 0 }); // meanwhile the light was switched off and said so
    expect(r.reported()).toEqual({ on: false, bri: 0 });
    answer({ on: true, bri: 30 }); // the read's answer was taken before that
    await vi.advanceTimersByTimeAsync(0);
    expect(r.reported()).toEqual({ on: false, bri: 0 });
    r.control.stop();
  });
  it('a resync read that answers after a newer report does not overwrite it with its older level', async () => {
    const r = rig({ readable: true });
    let answer: (level: LightLevel | null) => void = () => {};
    (r.inst.driver as unknown as { readState: () => Promise<LightLevel | null> }).readState = () =>
      new Promise((resolve) => {
        answer = resolve;
      });
    const resynced = r.control.resync(r.inst); // the driver's link came back: every light is read
    r.control.report(r.inst, 'L', { on: true, bri: 51 }); // a report overtakes the read's answer
    answer({ on: false, bri: 0 });
    await resynced;
    expect(r.reported()).toEqual({ on: true, bri: 51 });
    r.control.stop();
  });
});
