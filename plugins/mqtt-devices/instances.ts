/**
 * One `mqtt` driver instance per lighting site (a light is served by its site's instance of its vendor),
 * all on the same broker. The discovery site's instance also listens to discovery. An instance is
 * restarted when its site's device list changes (registration, a device moved between sites).
 */
import type { Logger } from 'pino';
import type { LightingDriver } from '../../drivers/lighting/index.ts';
import { deviceFromProtocolId, type MqttDevice } from '../../drivers/mqtt/device.ts';
import type { MqttLightingDriver } from '../../drivers/mqtt/driver.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { MqttDevicesConfig } from './config.ts';
import type { Ownership } from './ownership.ts';
import type { Registry } from './registry.ts';

export const DRIVER_PREFIX = 'mqtt-';

export class Instances {
  readonly #drivers = new Map<string, LightingDriver>();
  /** The protocol ids each running instance was started with. */
  readonly #watched = new Map<string, Set<string>>();
  /** Starts, stops and refreshes of one site run one after another (a change may arrive mid-start). */
  readonly #queue = new Map<string, Promise<void>>();
  readonly #lighting: LightingExports;
  readonly #registry: Registry;
  readonly #config: MqttDevicesConfig;
  readonly #log: Logger;
  readonly #ownership: Ownership;

  constructor(
    lighting: LightingExports,
    registry: Registry,
    config: MqttDevicesConfig,
    log: Logger,
    ownership: Ownership,
  ) {
    this.#lighting = lighting;
    this.#registry = registry;
    this.#config = config;
    this.#log = log;
    this.#ownership = ownership;
  }

  /** The site id whose discovered devices arrive here (config: id or name), or null. */
  discoverySite(): string | null {
    const want = this.#config.discoverySite;
    if (!want) return null;
    const sites = this.#lighting.sites;
    return sites.get(want)?.siteid ?? sites.list().find((s) => s.name === want)?.siteid ?? null;
  }

  static siteOf(driverId: string): string {
    return driverId.slice(DRIVER_PREFIX.length);
  }

  #options(site: string): Record<string, unknown> {
    const c = this.#config;
    const discovering = site === this.discoverySite();
    const b = c.broker;
    return {
      zigbee2mqttBase: c.zigbee2mqttBase,
      devices: this.#devices(site),
      discovery: discovering
        ? {
            homeAssistant: c.homeAssistantDiscovery ? c.homeAssistantPrefix : null,
            zigbee2mqtt: c.zigbee2mqttDiscovery,
            // Tasmota's own discovery has no setting of its own: it follows the discovery site.
            tasmota: true,
          }
        : {},
      ...(b.url
        ? {
            broker: {
              url: b.url,
              ...(b.username ? { username: b.username } : {}),
              ...(b.password ? { password: b.password } : {}),
              ...(b.caFile ? { caFile: b.caFile } : {}),
              rejectUnauthorized: b.rejectUnauthorized,
            },
          }
        : {}),
    };
  }

  /**
   * The registry's devices of the site, and the MQTT lights and sensors made on its site API. The latter are
   * claimed for the site in the registry, so a device two sites named before ownership was checked ends up
   * with one of them; the other's driver leaves it alone.
   */
  #devices(site: string): MqttDevice[] {
    const devices = this.#registry.forSite(site).map((r) => r.device);
    const named = this.#siteApiDevices(site).filter((d) => this.#ownership.owns(site, d.protocolid));
    for (const d of named)
      this.#registry
        .seen(site, d, 'implicit')
        .catch((err: unknown) => this.#log.warn({ err, device: d.protocolid }, 'device not claimed'));
    devices.push(...named);
    this.#watched.set(site, new Set(devices.map((d) => d.protocolid)));
    return devices;
  }

  /**
   * MQTT lights and sensors created on the site API whose device the registry does not know. A sensor never
   * gets a command, so without this its topics would not be watched; a light's first command registers it,
   * but watching it from the start also keeps its reports after a restart. A sensor sharing its id with a
   * light needs no entry of its own: the profiles report a light's button events too.
   */
  #siteApiDevices(site: string): MqttDevice[] {
    const defaults = { zigbee2mqttBase: this.#config.zigbee2mqttBase };
    const out = new Map<string, MqttDevice>();
    const add = (id: unknown, make: (d: MqttDevice) => MqttDevice) => {
      if (typeof id !== 'string' || out.has(id) || this.#registry.get(id)) return;
      const device = deviceFromProtocolId(id, defaults);
      if (device) out.set(id, make(device));
    };
    // The light's type decides how it is commanded and asked (a binary Tasmota takes POWER, never Dimmer).
    for (const l of this.#lighting.lights(site))
      if (l.vendor === 'mqtt') add(l.mqttid, (d) => ({ ...d, kind: l.type }));
    for (const s of this.#lighting.sensors(site)) {
      if (s.vendor !== 'mqtt') continue;
      add(s.mqttid, (d) => ({ ...d, kind: 'sensor', name: s.name, events: [...s.events] }));
    }
    return [...out.values()];
  }

  /** Hands a site's running instance the MQTT lights and sensors its site API gained since it started. */
  refresh(site: string): Promise<void> {
    return this.#serial(site, async () => {
      const watched = this.#watched.get(site);
      const driver = this.#drivers.get(site) as MqttLightingDriver | undefined;
      if (!watched || !driver) return;
      const added = this.#siteApiDevices(site).filter((d) => !watched.has(d.protocolid));
      if (added.length === 0) return;
      driver.watch(added);
      for (const d of added) watched.add(d.protocolid);
    });
  }

  #serial(site: string, step: () => Promise<void>): Promise<void> {
    const run = (this.#queue.get(site) ?? Promise.resolve()).then(step);
    const settled = run.catch(() => {});
    this.#queue.set(site, settled);
    void settled.then(() => {
      if (this.#queue.get(site) === settled) this.#queue.delete(site);
    });
    return run;
  }

  driver(site: string): LightingDriver | undefined {
    return this.#drivers.get(site);
  }

  sites(): string[] {
    return [...this.#drivers.keys()];
  }

  start(site: string): Promise<void> {
    return this.#serial(site, () => this.#start(site));
  }

  stop(site: string): Promise<void> {
    return this.#serial(site, () => this.#stop(site));
  }

  restart(site: string): Promise<void> {
    return this.#serial(site, () => this.#restart(site));
  }

  async #start(site: string): Promise<void> {
    if (this.#drivers.has(site)) return;
    const driver = await this.#lighting.addDriver({
      id: `${DRIVER_PREFIX}${site}`,
      type: 'mqtt',
      site,
      options: this.#options(site),
    });
    this.#drivers.set(site, driver);
  }

  async #stop(site: string): Promise<void> {
    this.#watched.delete(site);
    if (!this.#drivers.delete(site)) return;
    await this.#lighting.removeDriver(`${DRIVER_PREFIX}${site}`);
  }

  async #restart(site: string): Promise<void> {
    await this.#stop(site);
    await this.#start(site).catch((err: unknown) =>
      this.#log.error({ err, site }, 'mqtt driver failed to restart'),
    );
  }

  async stopAll(): Promise<void> {
    for (const site of [...this.#drivers.keys()]) await this.stop(site);
  }
}
