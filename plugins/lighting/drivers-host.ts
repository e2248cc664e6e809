/**
 * Driver types and running driver instances. Built-in types are imported only when a config entry uses
 * them (lazy loading); other plugins and tests register their own types. Each instance serves one site,
 * gets its own child logger `drv:<type>` and a sink that routes its reports into the plugin.
 */
import type { Logger } from 'pino';
import type {
  ConnectionStatus,
  DeviceInfo,
  DeviceScene,
  DriverFactory,
  LightingDriver,
  LightLevel,
  SensorReadings,
} from '../../drivers/lighting/index.ts';
import type { LightRecord } from './types.ts';

// A Map: a driver type comes from the config, and `constructor` must not find Object's.
const BUILTIN = new Map<string, () => Promise<DriverFactory>>([
  ['virtual', async () => (await import('./drivers/virtual.ts')).createVirtualDriver],
]);

export interface DriverInstance {
  id: string;
  type: string;
  siteId: string;
  driver: LightingDriver;
  status: ConnectionStatus;
  devices: DeviceInfo[];
  abort: AbortController;
}

export interface DriverEvents {
  state(inst: DriverInstance, protocolid: string, level: LightLevel): void;
  sensor(inst: DriverInstance, protocolid: string, event: string): void;
  /** A sensor's readings (docs/lighting.md#sensor-readings). */
  readings?(inst: DriverInstance, protocolid: string, readings: SensorReadings): void;
  /**
   * The link's status or detail changed; `linkChanged` when it went up or down (or the driver just started),
   * not when only the detail moved (an MQTT device came or went).
   */
  connection(inst: DriverInstance, linkChanged: boolean): void;
  /** The bridge's own scenes, the whole list (docs/lighting.md#device-scenes). */
  scenes?(inst: DriverInstance, scenes: DeviceScene[]): void;
}

export class DriverHost {
  readonly #types = new Map<string, DriverFactory>();
  readonly #instances = new Map<string, DriverInstance>();
  readonly #log: Logger;
  readonly #events: DriverEvents;

  constructor(log: Logger, events: DriverEvents) {
    this.#log = log;
    this.#events = events;
  }

  registerType(type: string, factory: DriverFactory): void {
    this.#types.set(type, factory);
  }

  async #factory(type: string): Promise<DriverFactory> {
    const known = this.#types.get(type);
    if (known) return known;
    const load = BUILTIN.get(type);
    if (!load) throw new Error(`unknown driver type ${type}`);
    const factory = await load();
    this.#types.set(type, factory);
    return factory;
  }

  async add(spec: {
    id: string;
    type: string;
    siteId: string;
    options: Record<string, unknown>;
  }): Promise<LightingDriver> {
    if (this.#instances.has(spec.id)) throw new Error(`driver id ${spec.id} is already in use`);
    const factory = await this.#factory(spec.type);
    const abort = new AbortController();
    const log = this.#log.child({ ns: `drv:${spec.type}`, driver: spec.id });
    const since = new Date().toISOString();
    // The sink is built before the driver exists, so `inst` is filled in right after the factory call.
    const inst = {
      id: spec.id,
      type: spec.type,
      siteId: spec.siteId,
      devices: [],
      abort,
    } as unknown as DriverInstance;
    const driver = factory({
      id: spec.id,
      options: spec.options,
      log,
      signal: abort.signal,
      sink: {
        reportState: (protocolid, level) =>
          this.#guard(inst, () => this.#events.state(inst, protocolid, level)),
        reportSensorEvent: (protocolid, event) =>
          this.#guard(inst, () => this.#events.sensor(inst, protocolid, event)),
        reportReadings: (protocolid, readings) =>
          this.#guard(inst, () => this.#events.readings?.(inst, protocolid, readings)),
        reportConnection: (status) =>
          this.#guard(inst, () => {
            if (inst.status && inst.status.connected === status.connected && !status.detail) return;
            const changed = !inst.status || inst.status.connected !== status.connected;
            inst.status = { ...status, since: changed ? new Date().toISOString() : inst.status.since };
            this.#events.connection(inst, changed);
          }),
        reportScenes: (scenes) => this.#guard(inst, () => this.#events.scenes?.(inst, scenes)),
        reportDevices: (devices) => {
          const known = new Map(inst.devices.map((d) => [d.protocolid, d]));
          for (const d of devices) known.set(d.protocolid, d);
          inst.devices = [...known.values()];
        },
      },
    });
    inst.driver = driver;
    inst.status ??= { connected: false, since };
    this.#instances.set(spec.id, inst);
    try {
      await driver.start();
      inst.status = driver.connection();
      inst.devices = await driver.listDevices();
    } catch (err) {
      this.#instances.delete(spec.id);
      abort.abort();
      throw err;
    }
    this.#events.connection(inst, true);
    log.info({ site: spec.siteId }, 'driver started');
    return driver;
  }

  #guard(inst: DriverInstance, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#log.error({ err, driver: inst.id }, 'driver report failed');
    }
  }

  async remove(id: string): Promise<void> {
    const inst = this.#instances.get(id);
    if (!inst) return;
    this.#instances.delete(id);
    inst.abort.abort();
    await inst.driver.stop();
  }

  async removeSite(siteId: string): Promise<void> {
    for (const inst of this.forSite(siteId)) await this.remove(inst.id);
  }

  async stopAll(): Promise<void> {
    for (const id of [...this.#instances.keys()].reverse()) {
      await this.remove(id).catch((err: unknown) =>
        this.#log.error({ err, driver: id }, 'driver stop failed'),
      );
    }
  }

  forSite(siteId: string): DriverInstance[] {
    return [...this.#instances.values()].filter((i) => i.siteId === siteId);
  }

  /** The instance named by the light's `driver` field, else the site's first instance of its vendor. */
  driverFor(light: LightRecord): DriverInstance | undefined {
    if (light.driver) {
      const inst = this.#instances.get(light.driver);
      return inst?.siteId === light.siteid ? inst : undefined;
    }
    for (const inst of this.#instances.values()) {
      if (inst.siteId === light.siteid && inst.type === light.vendor) return inst;
    }
    return undefined;
  }

  /** Does this instance serve this light? (used to route device reports) */
  serves(inst: DriverInstance, light: LightRecord): boolean {
    return (
      light.siteid === inst.siteId && (light.driver ? light.driver === inst.id : light.vendor === inst.type)
    );
  }

  get(id: string): DriverInstance | undefined {
    return this.#instances.get(id);
  }

  all(): DriverInstance[] {
    return [...this.#instances.values()];
  }
}

/** The connection view of GET /connection and the `connection` WebSocket event. */
export function connectionView(inst: DriverInstance) {
  return {
    _id: inst.id,
    vendor: inst.type,
    connected: inst.status.connected,
    since: inst.status.since,
    devices: inst.devices.length,
    ...(inst.status.detail ? { detail: inst.status.detail } : {}),
  };
}
