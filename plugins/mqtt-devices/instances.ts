/**
 * One `mqtt` driver instance per lighting site (a light is served by its site's instance of its vendor),
 * all on the same broker. The discovery site's instance also listens to discovery. An instance is
 * restarted when its site's device list changes (registration, a device moved between sites).
 */
import type { Logger } from 'pino';
import type { LightingDriver } from '../lighting/driver.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { MqttDevicesConfig } from './config.ts';
import type { Registry } from './registry.ts';

export const DRIVER_PREFIX = 'mqtt-';

export class Instances {
  readonly #drivers = new Map<string, LightingDriver>();
  readonly #lighting: LightingExports;
  readonly #registry: Registry;
  readonly #config: MqttDevicesConfig;
  readonly #log: Logger;

  constructor(lighting: LightingExports, registry: Registry, config: MqttDevicesConfig, log: Logger) {
    this.#lighting = lighting;
    this.#registry = registry;
    this.#config = config;
    this.#log = log;
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
      devices: this.#registry.forSite(site).map((r) => r.device),
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

  driver(site: string): LightingDriver | undefined {
    return this.#drivers.get(site);
  }

  sites(): string[] {
    return [...this.#drivers.keys()];
  }

  async start(site: string): Promise<void> {
    if (this.#drivers.has(site)) return;
    const driver = await this.#lighting.addDriver({
      id: `${DRIVER_PREFIX}${site}`,
      type: 'mqtt',
      site,
      options: this.#options(site),
    });
    this.#drivers.set(site, driver);
  }

  async stop(site: string): Promise<void> {
    if (!this.#drivers.delete(site)) return;
    await this.#lighting.removeDriver(`${DRIVER_PREFIX}${site}`);
  }

  async restart(site: string): Promise<void> {
    await this.stop(site);
    await this.start(site).catch((err: unknown) =>
      this.#log.error({ err, site }, 'mqtt driver failed to restart'),
    );
  }

  async stopAll(): Promise<void> {
    for (const site of [...this.#drivers.keys()]) await this.stop(site);
  }
}
