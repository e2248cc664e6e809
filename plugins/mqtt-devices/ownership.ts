/**
 * Every site's driver reaches every device on the one broker, so ownership is decided here: a device
 * belongs to the site its registry record names; a device the registry does not know yet belongs to the
 * site whose light or sensor names it. Ids that address the same device (`shelly1:abc` and
 * `shelly1:abc:relay:0`) are the same device.
 */
import { type AddressDefaults, deviceFromProtocolId, type MqttDevice } from '../../drivers/mqtt/device.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { Registry } from './registry.ts';

/** What a device is on the wire: its profile, address and channel, whatever id named it. */
function deviceKey(d: MqttDevice): string {
  return JSON.stringify([d.profile, d.address, d.component ?? null, d.channel ?? null]);
}

export class Ownership {
  readonly #registry: Registry;
  readonly #lighting: LightingExports;
  readonly #defaults: AddressDefaults;

  constructor(registry: Registry, lighting: LightingExports, defaults: AddressDefaults) {
    this.#registry = registry;
    this.#lighting = lighting;
    this.#defaults = defaults;
  }

  #keyOf(protocolid: string): string | null {
    const device = this.#registry.get(protocolid)?.device ?? deviceFromProtocolId(protocolid, this.#defaults);
    return device ? deviceKey(device) : null;
  }

  /** The site the registry gives the device (under this id or another naming it), or null. */
  registeredSite(protocolid: string): string | null {
    const exact = this.#registry.get(protocolid);
    if (exact) return exact.site;
    const key = this.#keyOf(protocolid);
    if (key === null) return null;
    return this.#registry.all().find((r) => deviceKey(r.device) === key)?.site ?? null;
  }

  /** A site other than `site` that the device belongs to: the registry's, else one whose light or sensor names it. */
  otherOwner(site: string, protocolid: string): string | null {
    const registered = this.registeredSite(protocolid);
    if (registered !== null) return registered === site ? null : registered;
    const key = this.#keyOf(protocolid);
    if (key === null) return null;
    for (const { siteid } of this.#lighting.sites.list()) {
      if (siteid === site) continue;
      const named = [...this.#lighting.lights(siteid), ...this.#lighting.sensors(siteid)].some(
        (x) => x.vendor === 'mqtt' && typeof x.mqttid === 'string' && this.#keyOf(x.mqttid) === key,
      );
      if (named) return siteid;
    }
    return null;
  }

  /** Whether a site's driver may command the device and report what it says (the hot path: registry only). */
  owns(site: string, protocolid: string): boolean {
    const registered = this.registeredSite(protocolid);
    return registered === null || registered === site;
  }
}
