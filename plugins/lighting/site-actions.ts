/**
 * Commands that touch several lights: apply a scene, toggle a group, and the actions bound to sensor
 * events. Sensor actions run in-process and synchronously up to the driver call (the promise: event → driver
 * command under 2 ms p99, README "Benchmark").
 */
import type { Logger } from 'pino';
import type { LightColour, LightLevel } from '../../drivers/lighting/index.ts';
import type { Catalog } from './catalog.ts';
import type { ColourCommand } from './domain/colour.ts';
import type { ActionCondition } from './domain/conditions.ts';
import { groupLevel, type MemberLevel, togglePlan } from './domain/groups.ts';
import { colourOf } from './domain/level.ts';
import { actionsFor } from './domain/sensor-events.ts';
import type { DriverInstance } from './drivers-host.ts';
import type { LightControl } from './light-control.ts';
import type { Live } from './live.ts';
import type {
  GroupRecord,
  LightAction,
  LightRecord,
  SceneRecord,
  SensorEventRecord,
  SensorRecord,
} from './types.ts';

const RECENT_EVENTS = 50;

/** The colour and transition a stored light action asks for; none for a plain on/bri action (fast path). */
function lightActionExtra(a: LightAction): ColourCommand | undefined {
  if (a.ct === undefined && a.xy === undefined && a.transition === undefined) return undefined;
  const extra: ColourCommand = {};
  const colour = colourOf(a);
  if (Object.keys(colour).length) extra.colour = colour;
  if (a.transition !== undefined) extra.transition = a.transition;
  return extra;
}

export interface Outcome extends LightColour {
  _id: string;
  on: boolean;
  bri: number;
}

export interface MultiResult {
  state: Outcome[];
  failed: Array<{ _id: string; message: string }>;
}

export class SiteActions {
  readonly #catalog: Catalog;
  readonly #control: LightControl;
  readonly #live: Live;
  readonly #log: Logger;
  readonly #recent = new Map<string, SensorEventRecord[]>();
  /** Whether an action's conditions hold now (docs/lighting.md#action-conditions); set by the plugin. */
  conditionsHold: (siteId: string, sensorId: string, when: ActionCondition) => boolean = () => false;
  /** Told of every sensor event after its actions started (the bus event `lighting.sensor.event`). */
  onEvent: ((sensor: SensorRecord, record: SensorEventRecord) => void) | null = null;

  constructor(catalog: Catalog, control: LightControl, live: Live, log: Logger) {
    this.#catalog = catalog;
    this.#control = control;
    this.#live = live;
    this.#log = log;
  }

  /** Hands every entry to its driver; one failing light does not stop the others. */
  async #many(
    siteId: string,
    plan: Array<{ _id: string; level: LightLevel; colour?: LightColour }>,
  ): Promise<MultiResult> {
    const started = plan.map((p) => {
      const light = this.#catalog.findLight(siteId, p._id);
      if (!light)
        return { _id: p._id, level: p.level, handed: Promise.reject(new Error('light was deleted')) };
      const { level, handed } = this.#control.set(light, p.level, p.colour && { colour: p.colour });
      return { _id: p._id, level, handed };
    });
    const settled = await Promise.allSettled(started.map((s) => s.handed));
    const result: MultiResult = { state: [], failed: [] };
    settled.forEach((r, i) => {
      const s = started[i]!;
      if (r.status === 'fulfilled') result.state.push({ _id: s._id, ...s.level });
      else result.failed.push({ _id: s._id, message: (r.reason as Error).message });
    });
    return result;
  }

  async applyScene(siteId: string, scene: SceneRecord): Promise<MultiResult> {
    if (scene.device && (await this.#recall(siteId, scene))) {
      this.#live.publish(siteId, 'sceneApplied', { _id: scene._id, name: scene.name });
      return { state: scene.state.map((e) => ({ ...e })), failed: [] };
    }
    const result = await this.#many(
      siteId,
      scene.state.map((e) => {
        const colour = colourOf(e);
        return Object.keys(colour).length
          ? { _id: e._id, level: { on: e.on, bri: e.bri }, colour }
          : { _id: e._id, level: { on: e.on, bri: e.bri } };
      }),
    );
    this.#live.publish(siteId, 'sceneApplied', { _id: scene._id, name: scene.name });
    return result;
  }

  /**
   * A bridge's scene is recalled on the bridge: one command, the lights' new states come back as reports
   * (docs/lighting.md#device-scenes). False when it cannot be (driver gone, link down, recall refused):
   * the scene is then applied light by light from its entries.
   */
  async #recall(siteId: string, scene: SceneRecord): Promise<boolean> {
    const inst = scene.device && this.#control.instance(scene.device.driver);
    if (!scene.device || !inst?.driver.recallScene || inst.siteId !== siteId || !inst.status.connected)
      return false;
    try {
      await this.#control.withinDeadline(inst.driver.recallScene(scene.device.sceneid));
      return true;
    } catch (err) {
      this.#log.warn({ err, scene: scene._id, driver: inst.id }, 'scene recall refused: applied per light');
      return false;
    }
  }

  members(group: GroupRecord): MemberLevel[] {
    return group.lights.map((id) => {
      const e = this.#control.entry(id);
      return { _id: id, level: e.reported, lastOnBri: e.lastOnBri };
    });
  }

  groupView(group: GroupRecord) {
    return { ...group, ...groupLevel(this.members(group)) };
  }

  async toggleGroup(siteId: string, group: GroupRecord): Promise<MultiResult> {
    const plan = togglePlan(this.members(group));
    const { batches, rest } = this.#groupBatches(siteId, plan);
    if (batches.length === 0) return this.#many(siteId, plan);
    const result = await this.#many(siteId, rest);
    await Promise.all(
      batches.map(async (b) => {
        const { levels, handed } = this.#control.setGroup(group._id, b.inst, b.lights, b.level);
        try {
          await handed;
          b.lights.forEach((l, i) => {
            result.state.push({ _id: l._id, ...(levels[i] as LightLevel) });
          });
        } catch (err) {
          for (const l of b.lights) result.failed.push({ _id: l._id, message: (err as Error).message });
        }
      }),
    );
    const order = new Map(plan.map((p, i) => [p._id, i]));
    result.state.sort((a, b) => (order.get(a._id) ?? 0) - (order.get(b._id) ?? 0));
    return result;
  }

  /**
   * Lights of one driver that takes whole-group commands and that all go to the same level become one
   * group command (docs/lighting.md#whole-group-commands); two or more, or it saves nothing.
   */
  #groupBatches(siteId: string, plan: Array<{ _id: string; level: LightLevel }>) {
    const byKey = new Map<string, { inst: DriverInstance; lights: LightRecord[]; level: LightLevel }>();
    const single = new Map<string, { _id: string; level: LightLevel }>();
    for (const p of plan) {
      const light = this.#catalog.data.lights.find((l) => l._id === p._id && l.siteid === siteId);
      const inst = light && this.#control.groupDriver(light);
      if (!light || !inst) {
        single.set(p._id, p);
        continue;
      }
      const key = `${inst.id}\u0000${p.level.on}\u0000${p.level.bri}`;
      const b = byKey.get(key) ?? { inst, lights: [], level: p.level };
      b.lights.push(light);
      byKey.set(key, b);
    }
    const batches = [...byKey.values()].filter((b) => b.lights.length >= 2);
    for (const b of byKey.values())
      if (b.lights.length < 2) for (const l of b.lights) single.set(l._id, { _id: l._id, level: b.level });
    return { batches, rest: plan.filter((p) => single.has(p._id)) };
  }

  recent(siteId: string): SensorEventRecord[] {
    return this.#recent.get(siteId) ?? [];
  }

  /**
   * A sensor event: actions first (latency), then the record and the push. Resolves once every action's
   * commands are handed to drivers.
   */
  async sensorEvent(siteId: string, sensor: SensorRecord, event: string): Promise<void> {
    const due = actionsFor(sensor, event).filter(
      (a) => !a.when || this.conditionsHold(siteId, sensor._id, a.when),
    );
    const runs = due.map((a) => {
      if (a.type === 'light') {
        const light = this.#catalog.findLight(siteId, a._id);
        return light
          ? this.#control.set(light, { on: a.on, bri: a.bri }, lightActionExtra(a)).handed
          : Promise.resolve();
      }
      if (a.type === 'scene') {
        const scene = this.#catalog.data.scenes.find((s) => s._id === a._id && s.siteid === siteId);
        return scene ? this.applyScene(siteId, scene) : Promise.resolve();
      }
      const group = this.#catalog.data.groups.find((g) => g._id === a._id && g.siteid === siteId);
      return group ? this.toggleGroup(siteId, group) : Promise.resolve();
    });
    const record: SensorEventRecord = {
      _id: sensor._id,
      name: sensor.name,
      event,
      at: new Date().toISOString(),
    };
    const list = this.#recent.get(siteId) ?? [];
    list.unshift(record);
    if (list.length > RECENT_EVENTS) list.length = RECENT_EVENTS;
    this.#recent.set(siteId, list);
    this.#live.publish(siteId, 'eventSourceKey', record);
    this.onEvent?.(sensor, record);
    const results = await Promise.allSettled(runs);
    for (const r of results) {
      if (r.status === 'rejected')
        this.#log.warn({ err: r.reason, sensor: sensor._id, event }, 'sensor action failed');
    }
  }

  forgetSite(siteId: string): void {
    this.#recent.delete(siteId);
  }
}
