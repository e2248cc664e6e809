/**
 * Scenes a bridge keeps (docs/lighting.md#device-scenes): each one a Hearth scene of the driver's site,
 * kept in line with the driver's latest list (added, renamed, changed, removed) and applied by recalling
 * it on the bridge. Their entries name the site's lights the scene sets, so the scene also shows what
 * it does and can still be applied light by light when the bridge cannot recall it.
 */
import type { DeviceScene } from '../../drivers/lighting/index.ts';
import { type Catalog, dropActions } from './catalog.ts';
import { newId } from './domain/ids.ts';
import { colourOf, normalizeLevel } from './domain/level.ts';
import type { DriverHost, DriverInstance } from './drivers-host.ts';
import type { SceneEntry, SceneRecord } from './types.ts';

type Wanted = { sceneid: string; name: string; state: SceneEntry[] };

const sameScene = (r: SceneRecord, w: Wanted) =>
  r.name === w.name && JSON.stringify(r.state) === JSON.stringify(w.state);

/**
 * The latest scene list of each driver, synced when the driver reports it and again whenever the site's
 * configuration changes (a light created for a bridge light joins the scenes that set it).
 */
export class DeviceScenes {
  readonly #latest = new Map<string, DeviceScene[]>();
  readonly #catalog: Catalog;
  readonly #drivers: DriverHost;
  readonly #onError: (err: unknown, inst: DriverInstance) => void;

  constructor(catalog: Catalog, drivers: DriverHost, onError: (err: unknown, inst: DriverInstance) => void) {
    this.#catalog = catalog;
    this.#drivers = drivers;
    this.#onError = onError;
  }

  report(inst: DriverInstance, scenes: DeviceScene[]): void {
    this.#latest.set(inst.id, scenes);
    this.#sync(inst, scenes);
  }

  siteChanged(siteId: string): void {
    for (const [id, scenes] of this.#latest) {
      const inst = this.#drivers.get(id);
      if (!inst) this.#latest.delete(id);
      else if (inst.siteId === siteId) this.#sync(inst, scenes);
    }
  }

  #sync(inst: DriverInstance, scenes: DeviceScene[]): void {
    syncDeviceScenes(this.#catalog, this.#drivers, inst, scenes).catch((err: unknown) =>
      this.#onError(err, inst),
    );
  }
}

/** Brings the site's scenes of this driver in line with `scenes`; commits only when something changed. */
export async function syncDeviceScenes(
  catalog: Catalog,
  drivers: DriverHost,
  inst: DriverInstance,
  scenes: DeviceScene[],
): Promise<void> {
  const lights = new Map<string, (typeof catalog.data.lights)[number]>();
  for (const l of catalog.data.lights) if (drivers.serves(inst, l)) lights.set(l.protocolid, l);
  const wanted: Wanted[] = scenes.map((s) => {
    const seen = new Set<string>();
    const state: SceneEntry[] = [];
    for (const e of s.state) {
      const light = lights.get(e.protocolid);
      if (!light || seen.has(light._id)) continue;
      seen.add(light._id);
      const level = normalizeLevel(light.type, e);
      state.push({ _id: light._id, ...level, ...(level.on && light.type !== 'binary' ? colourOf(e) : {}) });
    }
    return { sceneid: s.id, name: s.name, state };
  });
  const mine = (r: SceneRecord) => r.siteid === inst.siteId && r.device?.driver === inst.id;
  const current = catalog.data.scenes.filter(mine);
  const byId = new Map(current.map((r) => [r.device?.sceneid, r]));
  const unchanged =
    current.length === wanted.length &&
    wanted.every((w) => {
      const r = byId.get(w.sceneid);
      return r !== undefined && sameScene(r, w);
    });
  if (unchanged) return;
  await catalog.commit(inst.siteId, (d) => {
    const keep = new Map(d.scenes.filter(mine).map((r) => [r.device?.sceneid, r]));
    const next: SceneRecord[] = wanted.map((w) => ({
      _id: keep.get(w.sceneid)?._id ?? newId(),
      siteid: inst.siteId,
      name: w.name,
      state: w.state,
      device: { driver: inst.id, sceneid: w.sceneid },
    }));
    const gone = new Set(
      [...keep.values()]
        .filter((r) => !wanted.some((w) => w.sceneid === r.device?.sceneid))
        .map((r) => r._id),
    );
    d.scenes = [...d.scenes.filter((r) => !mine(r)), ...next];
    // An action bound to a scene the bridge no longer has would dangle.
    if (gone.size > 0) dropActions(d, (a) => a.type === 'scene' && gone.has(a._id));
  });
}
