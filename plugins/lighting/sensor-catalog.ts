/** Sensors and the actions bound to their events; the same validate-then-commit rule as the catalog. */
import { type Catalog, missing } from './catalog.ts';
import type { ParsedAction, SensorFields } from './domain/bodies.ts';
import { nested } from './domain/check.ts';
import { parseColour } from './domain/colour.ts';
import type { ActionCondition } from './domain/conditions.ts';
import { newId } from './domain/ids.ts';
import { normalizeLevel } from './domain/level.ts';
import { actionsFor } from './domain/sensor-events.ts';
import type { ActionRecord, ActionSpec, LightAction, SensorRecord } from './types.ts';

export class SensorCatalog {
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  async addSensor(siteId: string, f: SensorFields): Promise<SensorRecord> {
    this.#catalog.checkDuplicate(siteId, f.vendor, f.protocolid, 'sensors');
    const sensor: SensorRecord = { _id: newId(), siteid: siteId, ...f, actions: {} };
    await this.#catalog.commit(siteId, (d) => {
      d.sensors.push(sensor);
    });
    return sensor;
  }

  async modifySensor(siteId: string, id: string, f: SensorFields): Promise<SensorRecord> {
    const before = this.#catalog.sensor(siteId, id);
    const wasNew = before.new === true;
    const same = before.vendor === f.vendor && before.protocolid === f.protocolid;
    this.#catalog.checkDuplicate(siteId, f.vendor, f.protocolid, 'sensors', id, same);
    await this.#catalog.commit(siteId, (d) => {
      const s = d.sensors.find((x) => x._id === id);
      if (!s) return;
      Object.assign(s, f);
      if (!f.new) delete s.new;
      if (f.checkInSeconds === undefined) delete s.checkInSeconds;
    });
    const sensor = this.#catalog.sensor(siteId, id);
    if (wasNew && !sensor.new) this.#catalog.accepted('sensor', sensor);
    return sensor;
  }

  async deleteSensor(siteId: string, id: string): Promise<void> {
    this.#catalog.sensor(siteId, id);
    await this.#catalog.commit(siteId, (d) => {
      d.sensors = d.sensors.filter((x) => x._id !== id);
    });
  }

  /** The action's target must exist on the site; the event is added to the sensor's list if new. */
  async addAction(
    siteId: string,
    sensorId: string,
    event: string,
    spec: ParsedAction,
    when?: ActionCondition,
  ): Promise<SensorRecord> {
    this.#catalog.sensor(siteId, sensorId);
    if (when?.sensor !== undefined) this.#catalog.sensor(siteId, when.sensor);
    let target: ActionSpec = spec;
    if (spec.type === 'light') {
      // Stored like any level: normalised for the light's type (spec bri rules).
      const light = this.#catalog.light(siteId, spec._id);
      const action: LightAction = { type: 'light', _id: spec._id, ...normalizeLevel(light.type, spec) };
      const input = spec.colourInput;
      if (input) {
        // stored as the light will be set to (mirek/xy clipped to it), like a scene entry
        const { colour, transition } = nested('action', () =>
          parseColour(input, spec._id, light.capabilities),
        );
        if (colour) Object.assign(action, colour);
        if (transition !== undefined) action.transition = transition;
      }
      target = action;
    } else if (spec.type === 'scene') this.#catalog.scene(siteId, spec._id);
    else this.#catalog.group(siteId, spec._id);
    const action: ActionRecord = { ...target, actionid: newId(), ...(when ? { when } : {}) };
    await this.#catalog.commit(siteId, (d) => {
      const s = d.sensors.find((x) => x._id === sensorId);
      if (!s) return;
      s.actions[event] = [...actionsFor(s, event), action];
      if (!s.events.includes(event)) s.events.push(event);
    });
    return this.#catalog.sensor(siteId, sensorId);
  }

  async removeAction(siteId: string, sensorId: string, actionId: string): Promise<SensorRecord> {
    const sensor = this.#catalog.sensor(siteId, sensorId);
    const found = Object.values(sensor.actions).some((list) => list.some((a) => a.actionid === actionId));
    if (!found) throw missing('action', actionId);
    await this.#catalog.commit(siteId, (d) => {
      const s = d.sensors.find((x) => x._id === sensorId);
      if (!s) return;
      for (const [event, list] of Object.entries(s.actions)) {
        const kept = list.filter((a) => a.actionid !== actionId);
        if (kept.length) s.actions[event] = kept;
        else delete s.actions[event];
      }
    });
    return this.#catalog.sensor(siteId, sensorId);
  }
}
