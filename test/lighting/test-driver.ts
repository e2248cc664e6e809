/**
 * A lighting driver for tests, speaking only through the driver interface. Each instance is reachable
 * through `instances` so a test can watch commands, hold the link busy, make devices silent, press
 * buttons and drop the connection.
 */
import type {
  DeviceInfo,
  DriverFactory,
  DriverSink,
  LightLevel,
  SensorReadings,
} from '../../drivers/lighting/index.ts';

export type Behaviour = 'report' | 'silent' | 'fail';

export class TestDriverControl {
  readonly commands: Array<{ protocolid: string; level: LightLevel; at: bigint }> = [];
  readonly levels = new Map<string, LightLevel>();
  /** Every readState call, by protocol id, oldest first. */
  readonly reads: string[] = [];
  behaviour: Behaviour = 'report';
  /** When false, `readState` is absent in effect (returns null) and reconciliation assumes the desired level. */
  readable = true;
  /** Devices whose reads never settle (a link that stopped answering for them). */
  readonly hangingReads = new Set<string>();
  /** Pairing fails with an error naming the bridge (it must stay in the log). */
  discoverFails = false;
  /** Runs while pairing is open (devices joining); pairing ends when it resolves. */
  onDiscover: ((durationMs: number) => Promise<void>) | null = null;
  connected = false;
  started = false;
  #gate: Promise<void> | null = null;
  /** What the device makes of a command before reporting it (a bulb that rounds to its own steps). */
  deviceLevel: (level: LightLevel) => LightLevel = (level) => level;
  /** Called synchronously inside setState (the benchmark timestamps here). */
  onCommand: ((protocolid: string) => void) | null = null;

  constructor(
    readonly sink: DriverSink,
    readonly devices: DeviceInfo[],
  ) {}

  /** Makes every setState wait until the returned function is called (a busy link). */
  hold(): () => void {
    let release = () => {};
    this.#gate = new Promise<void>((r) => {
      release = r;
    });
    return () => {
      this.#gate = null;
      release();
    };
  }

  async setState(protocolid: string, level: LightLevel): Promise<void> {
    if (!this.started) throw new Error('test driver is stopped');
    this.onCommand?.(protocolid);
    this.commands.push({ protocolid, level, at: process.hrtime.bigint() });
    if (this.#gate) await this.#gate;
    if (this.behaviour === 'fail') throw new Error('radio timeout');
    const actual = this.deviceLevel(level);
    this.levels.set(protocolid, actual);
    if (this.behaviour === 'report') queueMicrotask(() => this.sink.reportState(protocolid, actual));
  }

  press(protocolid: string, event: string): void {
    this.sink.reportSensorEvent(protocolid, event);
  }

  /** A sensor reports readings (temperature, battery...). */
  measure(protocolid: string, readings: SensorReadings): void {
    this.sink.reportReadings?.(protocolid, readings);
  }

  /** A device changed on its own (wall switch, another app). */
  external(protocolid: string, level: LightLevel): void {
    this.levels.set(protocolid, level);
    this.sink.reportState(protocolid, level);
  }

  /** A device changed while the link was down: nothing is reported, only a read-back can see it. */
  unseenChange(protocolid: string, level: LightLevel): void {
    this.levels.set(protocolid, level);
  }

  setConnected(connected: boolean): void {
    this.connected = connected;
    this.sink.reportConnection({ connected, detail: { link: 'loopback' } });
  }
}

export function testDriverType(): { factory: DriverFactory; instances: Map<string, TestDriverControl> } {
  const instances = new Map<string, TestDriverControl>();
  const factory: DriverFactory = ({ id, options, sink }) => {
    const devices = (options.devices as DeviceInfo[] | undefined) ?? [];
    const c = new TestDriverControl(sink, devices);
    instances.set(id, c);
    return {
      async start() {
        c.started = true;
        c.connected = true;
      },
      async stop() {
        c.started = false;
        c.connected = false;
      },
      async discover({ durationMs }) {
        if (c.discoverFails) throw new Error('bridge 10.0.0.7:443 refused pairing');
        await c.onDiscover?.(durationMs);
        return c.devices;
      },
      async listDevices() {
        return c.devices;
      },
      setState: (protocolid, level) => c.setState(protocolid, level),
      async readState(protocolid) {
        c.reads.push(protocolid);
        if (c.hangingReads.has(protocolid)) return new Promise<never>(() => {});
        return c.readable ? (c.levels.get(protocolid) ?? null) : null;
      },
      connection: () => ({ connected: c.connected, since: new Date(0).toISOString() }),
    };
  };
  return { factory, instances };
}
