/** Scenes and light groups: both name lights of their site; validate first, then commit (as catalog.ts). */
import { type Catalog, dropActions } from './catalog.ts';
import type { ParsedSceneEntry } from './domain/bodies.ts';
import { invalid, nested } from './domain/check.ts';
import { parseColour } from './domain/colour.ts';
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
  #sceneState(siteId: string, state: ParsedSceneEntry[]): SceneEntry[] {
    const seen = new Set<string>();
    return state.map((e, i) => {
      if (seen.has(e._id)) throw invalid(`state lists light ${e._id} more than once`);
      seen.add(e._id);
      const light = this.#catalog.light(siteId, e._id);
      const entry: SceneEntry = { _id: e._id, ...normalizeLevel(light.type, e) };
      const input = e.colourInput;
      if (!input) return entry;
      // a scene stores what the light will be set to: mirek and xy, already clipped to the light
      const { colour } = nested(`state[${i}]`, () => parseColour(input, e._id, light.capabilities));
      return colour ? { ...entry, ...colour } : entry;
    });
  }

  async addScene(siteId: string, name: string, entries: ParsedSceneEntry[]): Promise<SceneRecord> {
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
    change: { name?: string; state?: ParsedSceneEntry[] },
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
