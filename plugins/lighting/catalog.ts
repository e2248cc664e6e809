/**
 * A site's lights, scenes, groups and sensors: lookups, and the changes of lights. Every change is validated
 * completely before the store is touched, then committed durably (durable when the API answers, docs/durability.md;
 * nothing changes on a rejection). Scenes and groups change in scene-group-catalog.ts, sensors in
 * sensor-catalog.ts, by the same rule.
 */

import { type DocStore, HttpError } from '../../core/sdk.ts';
import type { LightFields } from './domain/bodies.ts';
import { newId } from './domain/ids.ts';
import type {
  ActionRecord,
  ConfigDoc,
  DeviceAccepted,
  GroupRecord,
  LightRecord,
  SceneRecord,
  SensorRecord,
} from './types.ts';

export const missing = (what: string, id: string) =>
  new HttpError(404, 'not_found', `no ${what} with _id ${id} on this site`);

/** Whether a device of a vendor whose devices are shared by all sites (one MQTT broker) belongs to another site. */
export type ForeignDeviceCheck = (siteId: string, protocolid: string) => boolean;

/** Why a protocol id can name no device of a vendor, or null when it can. */
export type ProtocolIdRule = (protocolid: string) => string | null;

interface LightIndex {
  version: number;
  byId: Map<string, LightRecord>;
  byProtocolId: Map<string, LightRecord[]>;
}

export class Catalog {
  readonly #doc: DocStore<ConfigDoc>;
  /** Lights by `_id` and by protocol id, rebuilt after a change: every command and report looks one up. */
  #index: LightIndex | null = null;
  /** Per vendor: the plugin that knows which site each device belongs to (a Map: vendors are outside ids). */
  readonly #foreign = new Map<string, ForeignDeviceCheck>();
  /** Per vendor: why an id can name no device of that vendor (installed by the vendor's plugin). */
  readonly #idRules = new Map<string, ProtocolIdRule>();

  /** Told after every committed change of a site's configuration (the WebSocket's `siteChanged`). */
  onChange: (siteId: string) => void = () => {};
  /** Told when a light or sensor marked new is accepted (the bus event `lighting.device.accepted`). */
  onAccepted: (accepted: DeviceAccepted) => void = () => {};

  constructor(doc: DocStore<ConfigDoc>) {
    this.#doc = doc;
  }

  /** Applies and durably writes a change of one site, then tells `onChange`. */
  async commit(siteId: string, mutate: (d: ConfigDoc) => void): Promise<void> {
    await this.#doc.commit(mutate);
    this.onChange(siteId);
  }

  get data(): Readonly<ConfigDoc> {
    return this.#doc.data;
  }

  lights(siteId: string): LightRecord[] {
    return this.#doc.data.lights.filter((l) => l.siteid === siteId);
  }
  scenes(siteId: string): SceneRecord[] {
    return this.#doc.data.scenes.filter((s) => s.siteid === siteId);
  }
  groups(siteId: string): GroupRecord[] {
    return this.#doc.data.groups.filter((g) => g.siteid === siteId);
  }
  sensors(siteId: string): SensorRecord[] {
    return this.#doc.data.sensors.filter((s) => s.siteid === siteId);
  }

  light(siteId: string, id: unknown): LightRecord {
    const l = typeof id === 'string' ? this.#lightIndex().byId.get(id) : undefined;
    if (!l || l.siteid !== siteId) throw missing('light', String(id));
    return l;
  }

  /** The light of this site with this id, or undefined (an index lookup, for per-command paths). */
  findLight(siteId: string, id: string): LightRecord | undefined {
    const l = this.#lightIndex().byId.get(id);
    return l?.siteid === siteId ? l : undefined;
  }

  /** Every light (of any site and driver) with this protocol id. */
  lightsWithProtocolId(protocolid: string): readonly LightRecord[] {
    return this.#lightIndex().byProtocolId.get(protocolid) ?? [];
  }

  #lightIndex(): LightIndex {
    const version = this.#doc.version;
    if (this.#index?.version === version) return this.#index;
    const byId = new Map<string, LightRecord>();
    const byProtocolId = new Map<string, LightRecord[]>();
    for (const l of this.#doc.data.lights) {
      byId.set(l._id, l);
      const same = byProtocolId.get(l.protocolid);
      if (same) same.push(l);
      else byProtocolId.set(l.protocolid, [l]);
    }
    this.#index = { version, byId, byProtocolId };
    return this.#index;
  }
  scene(siteId: string, id: unknown): SceneRecord {
    const s =
      typeof id === 'string'
        ? this.#doc.data.scenes.find((x) => x._id === id && x.siteid === siteId)
        : undefined;
    if (!s) throw missing('scene', String(id));
    return s;
  }
  group(siteId: string, id: unknown): GroupRecord {
    const g =
      typeof id === 'string'
        ? this.#doc.data.groups.find((x) => x._id === id && x.siteid === siteId)
        : undefined;
    if (!g) throw missing('group', String(id));
    return g;
  }
  sensor(siteId: string, id: unknown): SensorRecord {
    const s =
      typeof id === 'string'
        ? this.#doc.data.sensors.find((x) => x._id === id && x.siteid === siteId)
        : undefined;
    if (!s) throw missing('sensor', String(id));
    return s;
  }

  /** Light ids in a scene or group must name lights of the same site. */
  checkLights(siteId: string, ids: string[]): void {
    for (const id of ids) this.light(siteId, id);
  }

  /** Installed by the plugin that owns a vendor's devices; null removes it. */
  setDeviceOwnership(vendor: string, check: ForeignDeviceCheck | null): void {
    if (check) this.#foreign.set(vendor, check);
    else this.#foreign.delete(vendor);
  }

  setProtocolIdRule(vendor: string, rule: ProtocolIdRule | null): void {
    if (rule) this.#idRules.set(vendor, rule);
    else this.#idRules.delete(vendor);
  }

  /**
   * A vendor id names a device of the vendor (when its plugin has a rule), is unique per site among lights
   * (or among sensors), and a device shared by all sites (an MQTT device) belongs to one site: a light or
   * sensor of another site cannot name it. `unchanged`: the light or sensor kept the id it had (a rename
   * of a light made before a rule existed still works).
   */
  checkDuplicate(
    siteId: string,
    vendor: string,
    protocolid: string,
    kind: 'lights' | 'sensors',
    self?: string,
    unchanged = false,
  ) {
    const problem = unchanged ? null : (this.#idRules.get(vendor)?.(protocolid) ?? null);
    if (problem !== null)
      throw new HttpError(400, 'invalid_request', `${vendor}id ${protocolid} names no device: ${problem}`);
    const clash = this.#doc.data[kind].find(
      (x) => x.siteid === siteId && x.vendor === vendor && x.protocolid === protocolid && x._id !== self,
    );
    if (clash)
      throw new HttpError(409, 'conflict', `${vendor}id ${protocolid} is already used by _id ${clash._id}`);
    if (this.#foreign.get(vendor)?.(siteId, protocolid))
      throw new HttpError(409, 'conflict', `${vendor}id ${protocolid} is a device of another site`);
  }

  async addLight(siteId: string, f: LightFields): Promise<LightRecord> {
    this.checkDuplicate(siteId, f.vendor, f.protocolid, 'lights');
    const light: LightRecord = { _id: newId(), siteid: siteId, ...f };
    await this.commit(siteId, (d) => {
      d.lights.push(light);
    });
    return light;
  }

  async modifyLight(siteId: string, id: string, f: LightFields): Promise<LightRecord> {
    const before = this.light(siteId, id);
    const same = before.vendor === f.vendor && before.protocolid === f.protocolid;
    this.checkDuplicate(siteId, f.vendor, f.protocolid, 'lights', id, same);
    await this.commit(siteId, (d) => {
      const i = d.lights.findIndex((x) => x._id === id);
      if (i >= 0) d.lights[i] = { _id: id, siteid: siteId, ...f };
    });
    const light = this.light(siteId, id);
    if (before.new && !light.new) this.accepted('light', light);
    return light;
  }

  accepted(kind: 'light' | 'sensor', r: LightRecord | SensorRecord): void {
    this.onAccepted({ siteId: r.siteid, kind, _id: r._id, vendor: r.vendor, protocolid: r.protocolid });
  }

  /** Clears `new` on the site's lights and sensors with this vendor id; returns how many were new. */
  async acceptDevice(siteId: string, vendor: string, protocolid: string): Promise<number> {
    const match = (x: LightRecord | SensorRecord) =>
      x.siteid === siteId && x.vendor === vendor && x.protocolid === protocolid && x.new === true;
    const lights = this.#doc.data.lights.filter(match);
    const sensors = this.#doc.data.sensors.filter(match);
    if (lights.length + sensors.length === 0) return 0;
    await this.commit(siteId, () => {
      for (const x of [...lights, ...sensors]) delete x.new;
    });
    for (const l of lights) this.accepted('light', l);
    for (const s of sensors) this.accepted('sensor', s);
    return lights.length + sensors.length;
  }

  /** Also drops the light from scenes, groups and actions, so no reference dangles. */
  async deleteLight(siteId: string, id: string): Promise<void> {
    this.light(siteId, id);
    await this.commit(siteId, (d) => {
      d.lights = d.lights.filter((x) => x._id !== id);
      for (const s of d.scenes) s.state = s.state.filter((e) => e._id !== id);
      for (const g of d.groups) g.lights = g.lights.filter((l) => l !== id);
      dropActions(d, (a) => a.type === 'light' && a._id === id);
    });
  }

  /** The sensor a driver means by `vendor` + protocol id on a site. */
  sensorByDevice(siteId: string, vendor: string, protocolid: string): SensorRecord | undefined {
    return this.#doc.data.sensors.find(
      (s) => s.siteid === siteId && s.vendor === vendor && s.protocolid === protocolid,
    );
  }
}

export function dropActions(d: ConfigDoc, match: (a: ActionRecord) => boolean): void {
  for (const s of d.sensors) {
    for (const [event, list] of Object.entries(s.actions)) {
      const kept = list.filter((a) => !match(a));
      if (kept.length) s.actions[event] = kept;
      else delete s.actions[event];
    }
  }
}
