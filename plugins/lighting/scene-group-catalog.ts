/** Scenes and light groups: both name lights of their site; validate first, then commit (as catalog.ts). */
import { type Catalog, dropActions } from './catalog.ts';
import { invalid } from './domain/check.ts';
import { newId } from './domain/ids.ts';
import { normalizeLevel } from './domain/level.ts';
import type { GroupRecord, SceneEntry, SceneRecord } from './types.ts';

export class SceneGroupCatalog {
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
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
      return { _id: e._id, ...normalizeLevel(this.#catalog.light(siteId, e._id).type, e) };
    });
  }

  async addScene(siteId: string, name: string, entries: SceneEntry[]): Promise<SceneRecord> {
    const state = this.#sceneState(siteId, entries);
    const scene: SceneRecord = { _id: newId(), siteid: siteId, name, state };
    await this.#catalog.commit(siteId, (d) => {
      d.scenes.push(scene);
    });
    return scene;
  }

  async modifyScene(
    siteId: string,
    id: string,
    change: { name?: string; state?: SceneEntry[] },
  ): Promise<SceneRecord> {
    this.#catalog.scene(siteId, id);
    const state = change.state && this.#sceneState(siteId, change.state);
    await this.#catalog.commit(siteId, (d) => {
      const s = d.scenes.find((x) => x._id === id);
      if (s && change.name !== undefined) s.name = change.name;
      if (s && state !== undefined) s.state = state;
    });
    return this.#catalog.scene(siteId, id);
  }

  async deleteScene(siteId: string, id: string): Promise<void> {
    this.#catalog.scene(siteId, id);
    await this.#catalog.commit(siteId, (d) => {
      d.scenes = d.scenes.filter((x) => x._id !== id);
      dropActions(d, (a) => a.type === 'scene' && a._id === id);
    });
  }

  async addGroup(siteId: string, name: string, lights: string[]): Promise<GroupRecord> {
    this.#catalog.checkLights(siteId, lights);
    const group: GroupRecord = { _id: newId(), siteid: siteId, name, lights };
    await this.#catalog.commit(siteId, (d) => {
      d.groups.push(group);
    });
    return group;
  }

  async modifyGroup(
    siteId: string,
    id: string,
    change: { name?: string; lights?: string[] },
  ): Promise<GroupRecord> {
    this.#catalog.group(siteId, id);
    if (change.lights) this.#catalog.checkLights(siteId, change.lights);
    await this.#catalog.commit(siteId, (d) => {
      const g = d.groups.find((x) => x._id === id);
      if (g && change.name !== undefined) g.name = change.name;
      if (g && change.lights !== undefined) g.lights = change.lights;
    });
    return this.#catalog.group(siteId, id);
  }

  async deleteGroup(siteId: string, id: string): Promise<void> {
    this.#catalog.group(siteId, id);
    await this.#catalog.commit(siteId, (d) => {
      d.groups = d.groups.filter((x) => x._id !== id);
      dropActions(d, (a) => a.type === 'group/toggle' && a._id === id);
    });
  }
}
