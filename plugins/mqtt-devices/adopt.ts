/**
 * Discovered devices become lighting lights and sensors of the discovery site (they appear as lights
 * of the site they are assigned to, marked as new). A device is adopted once: the registry remembers it,
 * so retained discovery replayed at every start never recreates a light the operator deleted, and a vendor
 * id already used on the site (a light made by hand) counts as adopted. The `new` marks of the device and
 * of its light are kept together: accepting either accepts both (index.ts wires the two directions).
 */
import type { Logger } from 'pino';
import type { LightingExports } from '../lighting/types.ts';
import type { DeviceRecord, Registry } from './registry.ts';

/** Sources that are discovery proper (not a light's mqttid, not the operator's registration). */
const DISCOVERED = new Set(['homeassistant', 'zigbee2mqtt', 'tasmota']);
// The lighting plugin's name limit.
const MAX_NAME = 200;

export class Adopter {
  readonly #lighting: LightingExports;
  readonly #registry: Registry;
  readonly #log: Logger;
  /** Devices being adopted: a config announced twice in a row must not race into two creations. */
  readonly #busy = new Set<string>();

  constructor(lighting: LightingExports, registry: Registry, log: Logger) {
    this.#lighting = lighting;
    this.#registry = registry;
    this.#log = log;
  }

  /** Creates the light or sensor of a device discovered for `site` unless it was adopted before. */
  async adopt(site: string, protocolid: string): Promise<void> {
    const r = this.#registry.get(protocolid);
    if (!r || r.site !== site || r.adopted || !DISCOVERED.has(r.source) || this.#busy.has(protocolid)) return;
    this.#busy.add(protocolid);
    try {
      const created = await this.#create(r);
      if (created === null) return;
      await this.#registry.markAdopted(protocolid);
      if (created)
        this.#log.info(
          { device: protocolid, site },
          `discovered device added as a ${r.device.kind === 'sensor' ? 'sensor' : 'light'}`,
        );
    } finally {
      this.#busy.delete(protocolid);
    }
  }

  /** true: created; false: the site already had one (409); null: refused, tried again at next discovery. */
  async #create(r: DeviceRecord): Promise<boolean | null> {
    const d = r.device;
    const name = (d.name?.trim() || r.protocolid).slice(0, MAX_NAME);
    const opts = { new: r.new };
    try {
      if (d.kind === 'sensor')
        await this.#lighting.createSensor(
          r.site,
          { name, vendor: 'mqtt', protocolid: r.protocolid, type: 'button', events: d.events ?? [] },
          opts,
        );
      else
        await this.#lighting.createLight(
          r.site,
          {
            name,
            type: d.kind,
            vendor: 'mqtt',
            protocolid: r.protocolid,
            ...(d.capabilities && d.kind === 'dimmable' ? { capabilities: d.capabilities } : {}),
            ...(d.plug ? { plug: true } : {}),
          },
          opts,
        );
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 409) return false;
      this.#log.warn({ err, device: r.protocolid }, 'discovered device not added to lighting');
      return null;
    }
  }
}
