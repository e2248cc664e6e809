/**
 * The MQTT devices Hearth knows, per site: found by discovery (marked `new` until the operator accepts
 * them), registered by the operator, or named by a light's `mqttid`. Devices that disappear are marked
 * unavailable, never deleted. Membership changes are committed; presence is coalesced; last levels live in
 * their own file, written lazily (the device list shows them; Hearth's topics take levels from lighting).
 */

import { type DocStore, HttpError } from '../../core/sdk.ts';
import type { LightLevel } from '../../drivers/lighting/index.ts';
import type { MqttDevice } from '../../drivers/mqtt/device.ts';
import type { DeviceSource } from '../../drivers/mqtt/device-table.ts';

export interface DeviceRecord {
  protocolid: string;
  site: string;
  device: MqttDevice;
  source: DeviceSource | 'registered';
  new: boolean;
  /** null until the device said anything about its presence. */
  available: boolean | null;
  /** Discovery no longer lists it. */
  gone: boolean;
  /**
   * A lighting light or sensor was created for it (or already existed) when it was discovered: never
   * created again, so a light the operator deleted stays deleted although discovery replays at every start.
   */
  adopted?: boolean;
  firstSeen: string;
  lastSeen: string;
}

export interface RegistryDoc {
  devices: DeviceRecord[];
}

export interface LevelsDoc {
  levels: Record<string, LightLevel>;
}

export const deviceView = (r: DeviceRecord, level: LightLevel | null) => ({
  protocolid: r.protocolid,
  mqttid: r.protocolid,
  site: r.site,
  profile: r.device.profile,
  kind: r.device.kind,
  ...(r.device.name !== undefined ? { name: r.device.name } : {}),
  ...(r.device.events !== undefined ? { events: r.device.events } : {}),
  source: r.source,
  new: r.new,
  available: r.gone ? false : r.available,
  gone: r.gone,
  adopted: r.adopted === true,
  ...(level ? { on: level.on, bri: level.bri } : {}),
  firstSeen: r.firstSeen,
  lastSeen: r.lastSeen,
});

export class Registry {
  readonly #doc: DocStore<RegistryDoc>;
  readonly #levels: DocStore<LevelsDoc>;
  /** protocol id → record, rebuilt on every membership change (looked up on every device report). */
  #index = new Map<string, DeviceRecord>();
  /** Bumped whenever a device, its site or its topics change (the broker ACLs rebuild their topic index). */
  version = 0;
  /** Told when a device marked new is accepted here, so the light made from it is accepted too. */
  onAccepted: (r: DeviceRecord) => void = () => {};

  constructor(doc: DocStore<RegistryDoc>, levels: DocStore<LevelsDoc>) {
    this.#doc = doc;
    this.#levels = levels;
    // Keyed by protocol ids from the network: a null prototype, so `__proto__` is a key like any other.
    levels.data.levels = Object.assign(Object.create(null) as LevelsDoc['levels'], levels.data.levels);
    this.#reindex();
  }

  #reindex(): void {
    this.#index = new Map(this.#doc.data.devices.map((d) => [d.protocolid, d]));
  }

  /** A membership change; the index is rebuilt when it fails (the store has undone the change). */
  async #commit(mutate: (d: RegistryDoc) => void): Promise<void> {
    try {
      await this.#doc.commit(mutate);
    } catch (err) {
      this.#reindex();
      throw err;
    }
  }

  levelOf(protocolid: string): LightLevel | null {
    const levels = this.#levels.data.levels;
    return Object.hasOwn(levels, protocolid) ? (levels[protocolid] ?? null) : null;
  }

  view(r: DeviceRecord) {
    return deviceView(r, this.levelOf(r.protocolid));
  }

  all(): DeviceRecord[] {
    return this.#doc.data.devices;
  }
  forSite(site: string): DeviceRecord[] {
    return this.#doc.data.devices.filter((d) => d.site === site);
  }
  get(protocolid: string): DeviceRecord | undefined {
    return this.#index.get(protocolid);
  }
  require(protocolid: string): DeviceRecord {
    const r = this.get(protocolid);
    if (!r) throw new HttpError(404, 'not_found', `no MQTT device ${protocolid}`);
    return r;
  }

  /** A device seen by a driver of `site`. Returns true when it is new to Hearth. */
  async seen(site: string, device: MqttDevice, source: DeviceSource): Promise<boolean> {
    const now = new Date().toISOString();
    const known = this.get(device.protocolid);
    if (known) {
      this.#doc.update(() => {
        // An operator's registration keeps its own topics; discovery refreshes its own.
        if (known.source !== 'registered' && source !== 'implicit') {
          known.device = device;
          this.version += 1;
        }
        known.gone = false;
        known.lastSeen = now;
      });
      return false;
    }
    const record: DeviceRecord = {
      protocolid: device.protocolid,
      site,
      device,
      source,
      new: source !== 'implicit',
      available: null,
      gone: false,
      firstSeen: now,
      lastSeen: now,
    };
    await this.#commit((d) => {
      d.devices.push(record);
      this.#index.set(record.protocolid, record);
    });
    this.version += 1;
    return record.new;
  }

  async register(site: string, device: MqttDevice): Promise<DeviceRecord> {
    if (this.get(device.protocolid))
      throw new HttpError(409, 'conflict', `MQTT device ${device.protocolid} is already known`);
    const now = new Date().toISOString();
    const record: DeviceRecord = {
      protocolid: device.protocolid,
      site,
      device,
      source: 'registered',
      new: false,
      available: null,
      gone: false,
      firstSeen: now,
      lastSeen: now,
    };
    await this.#commit((d) => {
      d.devices.push(record);
      this.#index.set(record.protocolid, record);
    });
    this.version += 1;
    return record;
  }

  async patch(
    protocolid: string,
    change: { site?: string; new?: boolean; name?: string },
  ): Promise<DeviceRecord> {
    const r = this.require(protocolid);
    const accepting = r.new && change.new === false;
    await this.#commit(() => {
      if (change.site !== undefined) r.site = change.site;
      if (change.new !== undefined) r.new = change.new;
      if (change.name !== undefined) r.device = { ...r.device, name: change.name };
    });
    this.version += 1;
    if (accepting) this.onAccepted(r);
    return r;
  }

  /** Remembers (durably) that the device got its lighting light or sensor. */
  async markAdopted(protocolid: string): Promise<void> {
    const r = this.get(protocolid);
    if (!r || r.adopted) return;
    await this.#commit(() => {
      r.adopted = true;
    });
  }

  async remove(protocolid: string): Promise<DeviceRecord> {
    const r = this.require(protocolid);
    await this.#commit((d) => {
      d.devices = d.devices.filter((x) => x.protocolid !== protocolid);
      this.#index.delete(protocolid);
    });
    this.version += 1;
    this.#levels.update((d) => {
      delete d.levels[protocolid];
    });
    return r;
  }

  async removeSite(site: string): Promise<void> {
    if (!this.#doc.data.devices.some((d) => d.site === site)) return;
    const gone = this.forSite(site).map((r) => r.protocolid);
    await this.#commit((d) => {
      d.devices = d.devices.filter((x) => x.site !== site);
      for (const id of gone) this.#index.delete(id);
    });
    this.version += 1;
    this.#levels.update((d) => {
      for (const id of gone) delete d.levels[id];
    });
  }

  availability(protocolid: string, online: boolean): void {
    const r = this.get(protocolid);
    if (r && r.available !== online)
      this.#doc.update(() => {
        r.available = online;
        r.lastSeen = new Date().toISOString();
      });
  }

  gone(protocolid: string): void {
    const r = this.get(protocolid);
    if (r && !r.gone)
      this.#doc.update(() => {
        r.gone = true;
      });
  }

  level(protocolid: string, level: LightLevel): void {
    const r = this.get(protocolid);
    if (!r) return;
    if (r.available !== true) this.availability(protocolid, true);
    this.#levels.update((d) => {
      d.levels[protocolid] = level;
    });
  }

  async flush(): Promise<void> {
    await Promise.all([this.#doc.flush(), this.#levels.flush()]);
  }
}
