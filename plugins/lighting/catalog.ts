/**
 * A site's lights, scenes, groups and sensors. Every change is validated completely before the store is
 * touched, then committed durably (issue 3: durable when the API answers; nothing changes on a rejection).
 */
import { HttpError } from '../../core/http/errors.ts';
import type { DocStore } from '../../core/store/types.ts';
import type { LightFields } from './domain/bodies.ts';
import { invalid } from './domain/check.ts';
import { newId } from './domain/ids.ts';
import { normalizeLevel } from './domain/level.ts';
import type {
  ActionRecord,
  ConfigDoc,
  GroupRecord,
  LightRecord,
  SceneEntry,
  SceneRecord,
  SensorRecord,
} from './types.ts';

export const missing = (what: string, id: string) =>
  new HttpError(404, 'not_found', `no ${what} with _id ${id} on this site`);

export class Catalog {
  readonly #doc: DocStore<ConfigDoc>;

  /** Told after every committed change of a site's configuration (the WebSocket's `siteChanged`). */
  onChange: (siteId: string) => void = () => {};

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
    const l =
      typeof id === 'string'
        ? this.#doc.data.lights.find((x) => x._id === id && x.siteid === siteId)
        : undefined;
    if (!l) throw missing('light', String(id));
    return l;
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
  #checkLights(siteId: string, ids: string[]): void {
    for (const id of ids) this.light(siteId, id);
  }

  /** A vendor id is unique per site among lights (or among sensors). */
  checkDuplicate(
    siteId: string,
    vendor: string,
    protocolid: string,
    kind: 'lights' | 'sensors',
    self?: string,
  ) {
    const clash = this.#doc.data[kind].find(
      (x) => x.siteid === siteId && x.vendor === vendor && x.protocolid === protocolid && x._id !== self,
    );
    if (clash)
      throw new HttpError(409, 'conflict', `${vendor}id ${protocolid} is already used by _id ${clash._id}`);
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
    this.light(siteId, id);
    this.checkDuplicate(siteId, f.vendor, f.protocolid, 'lights', id);
    await this.commit(siteId, (d) => {
      const i = d.lights.findIndex((x) => x._id === id);
      if (i >= 0) d.lights[i] = { _id: id, siteid: siteId, ...f };
    });
    return this.light(siteId, id);
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

  /**
   * Scene entries name lights of the site, each at most once (two levels for one light would make the
   * scene's result depend on the order of the driver's queue), stored normalised like a light's level.
   */
  #sceneState(siteId: string, state: SceneEntry[]): SceneEntry[] {
    const seen = new Set<string>();
    return state.map((e) => {
      if (seen.has(e._id)) throw invalid(`state lists light ${e._id} more than once`);
      seen.add(e._id);
      return { _id: e._id, ...normalizeLevel(this.light(siteId, e._id).type, e) };
    });
  }

  async addScene(siteId: string, name: string, entries: SceneEntry[]): Promise<SceneRecord> {
    const state = this.#sceneState(siteId, entries);
    const scene: SceneRecord = { _id: newId(), siteid: siteId, name, state };
    await this.commit(siteId, (d) => {
      d.scenes.push(scene);
    });
    return scene;
  }

  async modifyScene(
    siteId: string,
    id: string,
    change: { name?: string; state?: SceneEntry[] },
  ): Promise<SceneRecord> {
    this.scene(siteId, id);
    const state = change.state && this.#sceneState(siteId, change.state);
    await this.commit(siteId, (d) => {
      const s = d.scenes.find((x) => x._id === id);
      if (s && change.name !== undefined) s.name = change.name;
      if (s && state !== undefined) s.state = state;
    });
    return this.scene(siteId, id);
  }

  async deleteScene(siteId: string, id: string): Promise<void> {
    this.scene(siteId, id);
    await this.commit(siteId, (d) => {
      d.scenes = d.scenes.filter((x) => x._id !== id);
      dropActions(d, (a) => a.type === 'scene' && a._id === id);
    });
  }

  async addGroup(siteId: string, name: string, lights: string[]): Promise<GroupRecord> {
    this.#checkLights(siteId, lights);
    const group: GroupRecord = { _id: newId(), siteid: siteId, name, lights };
    await this.commit(siteId, (d) => {
      d.groups.push(group);
    });
    return group;
  }

  async modifyGroup(
    siteId: string,
    id: string,
    change: { name?: string; lights?: string[] },
  ): Promise<GroupRecord> {
    this.group(siteId, id);
    if (change.lights) this.#checkLights(siteId, change.lights);
    await this.commit(siteId, (d) => {
      const g = d.groups.find((x) => x._id === id);
      if (g && change.name !== undefined) g.name = change.name;
      if (g && change.lights !== undefined) g.lights = change.lights;
    });
    return this.group(siteId, id);
  }

  async deleteGroup(siteId: string, id: string): Promise<void> {
    this.group(siteId, id);
    await this.commit(siteId, (d) => {
      d.groups = d.groups.filter((x) => x._id !== id);
      dropActions(d, (a) => a.type === 'group/toggle' && a._id === id);
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
