/**
 * The shared lighting-driver conformance suite (STYLE.md: one suite runs against every driver). A driver
 * test calls `describeDriverConformance(name, makeSubject)`; the suite builds the driver through its
 * factory with a recording sink and checks the contract of drivers/lighting/contract.ts.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectionStatus,
  type DeviceInfo,
  type DriverFactory,
  type DriverSink,
  fitColour,
  type LightCapabilities,
  type LightingDriver,
  type LightLevel,
  type LightState,
} from '../../drivers/lighting/index.ts';
import type { ColourCommandKind } from '../../scripts/simulators/common.ts';

export interface ConformanceSubject {
  factory: DriverFactory;
  options: Record<string, unknown>;
  /** Protocol id of a dimmable light the driver controls once started. */
  light: string;
  /**
   * A light with colour temperature and colour, for drivers that declare colour: its protocol id,
   * capabilities, and the colour commands its simulated device received so far (a colour temperature
   * command is `ct`, a colour command `xy`). The colour checks are skipped without it.
   */
  colourLight?: {
    protocolid: string;
    capabilities: LightCapabilities;
    received(): readonly ColourCommandKind[];
  };
  /** True when devices report levels on their own after a command (else readState must answer). */
  reports: boolean;
  /** Makes the (fake) device side emit a sensor event; sensor checks are skipped without it. */
  pressButton?(): Promise<{ protocolid: string; event: string }>;
  /** Takes the (fake) bridge/stick/broker down and back up; link checks are skipped without it. */
  dropLink?(): Promise<void>;
  restoreLink?(): Promise<void>;
  /** Releases whatever the subject started (fake servers, ports). */
  teardown?(): Promise<void>;
}

type Report =
  | { kind: 'state'; protocolid: string; level: LightState }
  | { kind: 'sensor'; protocolid: string; event: string }
  | { kind: 'connection'; status: Omit<ConnectionStatus, 'since'> }
  | { kind: 'devices'; devices: DeviceInfo[] };

/** A sink that records every report and lets a check wait for one. */
export class RecordingSink implements DriverSink {
  readonly reports: Report[] = [];
  #waiters: Array<{ test: (r: Report) => boolean; resolve: (r: Report) => void }> = [];

  #push(r: Report): void {
    this.reports.push(r);
    for (const w of [...this.#waiters]) {
      if (w.test(r)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(r);
      }
    }
  }
  reportState(protocolid: string, level: LightState): void {
    this.#push({ kind: 'state', protocolid, level: { ...level } });
  }
  reportSensorEvent(protocolid: string, event: string): void {
    this.#push({ kind: 'sensor', protocolid, event });
  }
  reportConnection(status: Omit<ConnectionStatus, 'since'>): void {
    this.#push({ kind: 'connection', status });
  }
  reportDevices(devices: DeviceInfo[]): void {
    this.#push({ kind: 'devices', devices });
  }
  /** The first report, from `from` on, that matches. */
  waitFor(test: (r: Report) => boolean, from = 0): Promise<Report> {
    const seen = this.reports.slice(from).find(test);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }
}

/** How far a reported level may be from the commanded one after the driver's scaling (0..100 % loses ~1.3). */
const SCALE_TOLERANCE = 3;

export function describeDriverConformance(
  name: string,
  makeSubject: () => Promise<ConformanceSubject>,
): void {
  describe(`lighting driver conformance: ${name}`, () => {
    let subject: ConformanceSubject | null = null;
    let driver: LightingDriver | null = null;
    let abort: AbortController;
    let sink: RecordingSink;

    async function build(): Promise<{ s: ConformanceSubject; d: LightingDriver }> {
      subject = await makeSubject();
      sink = new RecordingSink();
      abort = new AbortController();
      driver = subject.factory({
        id: 'conf',
        options: subject.options,
        sink,
        log: pino({ level: 'silent' }),
        signal: abort.signal,
      });
      return { s: subject, d: driver };
    }

    /** The level the device is in after a command: its report, or a read-back when it does not report. */
    async function levelAfter(s: ConformanceSubject, d: LightingDriver, from: number): Promise<LightLevel> {
      if (s.reports) {
        const r = await sink.waitFor((x) => x.kind === 'state' && x.protocolid === s.light, from);
        return (r as Extract<Report, { kind: 'state' }>).level;
      }
      expect(d.readState, 'a driver whose devices do not report must implement readState').toBeTypeOf(
        'function',
      );
      const read = await d.readState!(s.light);
      expect(read).not.toBeNull();
      return read!;
    }

    afterEach(async () => {
      abort?.abort();
      await driver?.stop().catch(() => {});
      await subject?.teardown?.();
      driver = null;
      subject = null;
    });

    it('does no I/O in the factory: not connected and no reports before start', async () => {
      const { d } = await build();
      expect(d.connection().connected).toBe(false);
      expect(sink.reports.filter((r) => r.kind === 'state' || r.kind === 'sensor')).toEqual([]);
    });

    it('connects on start and lists its devices', async () => {
      const { s, d } = await build();
      await d.start();
      expect(d.connection()).toMatchObject({ connected: true, since: expect.any(String) });
      expect(Number.isNaN(Date.parse(d.connection().since))).toBe(false);
      const devices = await d.listDevices();
      expect(devices.map((x) => x.protocolid)).toContain(s.light);
      for (const dev of devices) expect(['dimmable', 'binary', 'sensor']).toContain(dev.kind);
    });

    it('hands a level to the device and the device ends up at that level (on, dimmed, off)', async () => {
      const { s, d } = await build();
      await d.start();
      for (const level of [
        { on: true, bri: 255 },
        { on: true, bri: 128 },
        { on: true, bri: 1 },
        { on: false, bri: 0 },
      ]) {
        const from = sink.reports.length;
        await d.setState(s.light, level);
        const got = await levelAfter(s, d, from);
        expect(got.on).toBe(level.on);
        expect(Math.abs(got.bri - level.bri)).toBeLessThanOrEqual(SCALE_TOLERANCE);
        expect(got.on).toBe(got.bri > 0); // spec: on is false exactly when bri is 0
      }
    });

    it('ct reaches a colour light as a colour-temperature command, never as xy (colormode decides), and it ends up at the ct and colour it was sent', async (ctx) => {
      const { s, d } = await build();
      const c = s.colourLight;
      if (!c) return ctx.skip();
      await d.start();
      const target = { type: 'dimmable' as const, capabilities: c.capabilities };
      // "Ends up at": the first report that shows the commanded mode, not merely the first report after
      // the command (a late echo of the previous command may still arrive after it).
      const stateAfter = async (from: number, mode?: 'ct' | 'xy'): Promise<LightState> => {
        const r = await sink.waitFor(
          (x) =>
            x.kind === 'state' &&
            x.protocolid === c.protocolid &&
            x.level.colormode !== undefined &&
            (mode === undefined || x.level.colormode === mode),
          from,
        );
        return (r as Extract<Report, { kind: 'state' }>).level;
      };
      const closeTo = (got: LightState, want: { ct?: number; xy?: readonly [number, number] }) =>
        want.ct !== undefined
          ? Math.abs((got.ct ?? 0) - want.ct) <= 2
          : Math.abs((got.xy?.[0] ?? 0) - (want.xy?.[0] ?? 0)) <= 0.01 &&
            Math.abs((got.xy?.[1] ?? 0) - (want.xy?.[1] ?? 0)) <= 0.01;
      /** The colour commands the device received since `before`, once it received one. */
      const receivedSince = async (before: number) => {
        await expect.poll(() => c.received().length, { timeout: 5000 }).toBeGreaterThan(before);
        return c.received().slice(before);
      };
      const settledAt = async (from: number, mode: 'ct' | 'xy', want: Parameters<typeof closeTo>[1]) => {
        const r = await sink.waitFor(
          (x) =>
            x.kind === 'state' &&
            x.protocolid === c.protocolid &&
            x.level.colormode === mode &&
            closeTo(x.level, want),
          from,
        );
        return (r as Extract<Report, { kind: 'state' }>).level;
      };
      for (const ct of [c.capabilities.ct?.min, c.capabilities.ct?.max]) {
        if (ct === undefined) continue;
        // What the site API hands a driver for `ct`/`kelvin`: the temperature, its black-body xy (so a light
        // in colour mode can follow) and `colormode: 'ct'`, which decides what the device is sent.
        const colour = fitColour({ ct }, c.capabilities);
        const from = sink.reports.length;
        const before = c.received().length;
        await d.setState(c.protocolid, { on: true, bri: 200, ...colour }, target);
        expect(await receivedSince(before), 'a ct command reaches the device as colour temperature').toEqual([
          'ct',
        ]);
        const got = await settledAt(from, 'ct', { ct });
        expect(got.colormode).toBe('ct');
        expect(Math.abs((got.ct ?? 0) - ct)).toBeLessThanOrEqual(2);
      }
      if (c.capabilities.xy) {
        for (const xy of c.capabilities.xy.gamut) {
          const from = sink.reports.length;
          const before = c.received().length;
          await d.setState(c.protocolid, { on: true, bri: 200, xy, colormode: 'xy' }, target);
          expect(await receivedSince(before), 'an xy command reaches the device as a colour').toEqual(['xy']);
          const got = await settledAt(from, 'xy', { xy });
          expect(got.colormode).toBe('xy');
          expect(Math.abs((got.xy?.[0] ?? 0) - xy[0])).toBeLessThanOrEqual(0.01);
          expect(Math.abs((got.xy?.[1] ?? 0) - xy[1])).toBeLessThanOrEqual(0.01);
        }
      }
      // a level alone keeps the colour, and sends none
      const from = sink.reports.length;
      const before = c.received().length;
      await d.setState(c.protocolid, { on: true, bri: 50 }, target);
      const got = await stateAfter(from);
      expect(got.bri).toBeGreaterThan(40);
      expect(got.colormode).toBe(c.capabilities.xy ? 'xy' : 'ct');
      expect(c.received().slice(before)).toEqual([]);
    });

    it('reads back the level its device reported, when it implements readState', async (ctx) => {
      const { s, d } = await build();
      if (!d.readState) return ctx.skip();
      await d.start();
      const from = sink.reports.length;
      await d.setState(s.light, { on: true, bri: 200 });
      await levelAfter(s, d, from);
      const read = await d.readState(s.light);
      expect(read?.on).toBe(true);
      expect(Math.abs((read?.bri ?? 0) - 200)).toBeLessThanOrEqual(SCALE_TOLERANCE);
    });

    it('only ever reports levels on the API scale (integer bri 0..255, on exactly when bri > 0)', async () => {
      const { s, d } = await build();
      await d.start();
      const read: LightLevel[] = [];
      for (const bri of [0, 1, 77, 254, 255]) {
        const from = sink.reports.length;
        await d.setState(s.light, { on: bri > 0, bri });
        read.push(await levelAfter(s, d, from));
      }
      // Every report seen, plus read-backs for drivers whose devices do not report.
      const levels = [...sink.reports.flatMap((r) => (r.kind === 'state' ? [r.level] : [])), ...read];
      for (const l of levels) {
        expect(Number.isInteger(l.bri) && l.bri >= 0 && l.bri <= 255, JSON.stringify(l)).toBe(true);
        expect(l.on, JSON.stringify(l)).toBe(l.bri > 0);
      }
    });

    it('answers discover with an array of devices', async () => {
      const { d } = await build();
      await d.start();
      const found = await d.discover({ durationMs: 50 });
      expect(Array.isArray(found)).toBe(true);
    });

    it('reports sensor events', async (ctx) => {
      const { s, d } = await build();
      if (!s.pressButton) return ctx.skip();
      await d.start();
      const from = sink.reports.length;
      const pressed = await s.pressButton();
      const r = await sink.waitFor((x) => x.kind === 'sensor', from);
      expect(r).toEqual({ kind: 'sensor', protocolid: pressed.protocolid, event: pressed.event });
    });

    it('reports the link going down and coming back', async (ctx) => {
      const { s, d } = await build();
      if (!s.dropLink || !s.restoreLink) return ctx.skip();
      await d.start();
      const from = sink.reports.length;
      await s.dropLink();
      await sink.waitFor((x) => x.kind === 'connection' && !x.status.connected, from);
      expect(d.connection().connected).toBe(false);
      await s.restoreLink();
      await sink.waitFor((x) => x.kind === 'connection' && x.status.connected, from);
      expect(d.connection().connected).toBe(true);
    });

    it('stops: not connected, and commands after stop are refused', async () => {
      const { s, d } = await build();
      await d.start();
      await d.stop();
      expect(d.connection().connected).toBe(false);
      await expect(d.setState(s.light, { on: true, bri: 10 })).rejects.toThrow();
    });
  });
}
