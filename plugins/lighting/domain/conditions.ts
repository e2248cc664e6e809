/**
 * Conditions of sensor actions (docs/lighting.md#action-conditions): an action runs only when every
 * condition holds — a reading of the event's sensor (or another sensor of the site) above or below a
 * value, and the sun being up (`day`) or down (`night`) at the site's location. A condition that cannot
 * be judged (no such reading yet, no location) does not hold: the action is skipped, as Home Assistant's
 * numeric-state condition does with an unknown state.
 */
import { getPosition } from 'suncalc';
import { READING_NAMES, type ReadingName, type SensorReadings } from '../../../drivers/lighting/index.ts';
import { type Body, invalid } from './check.ts';

export interface Bound {
  below?: number;
  above?: number;
}

export type ActionCondition = { [K in ReadingName]?: Bound } & {
  /** Whose readings: another sensor of the site; absent, the sensor whose event it is. */
  sensor?: string;
  sun?: 'day' | 'night';
};

/** What judging needs from the plugin. */
export interface ConditionWorld {
  readings(sensorId: string): SensorReadings;
  location(siteId: string): { latitude: number; longitude: number } | null;
  now(): number;
}

/** The sun's centre at sunrise and sunset: 0.833° below the horizon (refraction and its radius). */
const HORIZON = (-0.833 * Math.PI) / 180;

export function sunIsUp(at: number, latitude: number, longitude: number): boolean {
  return getPosition(new Date(at), latitude, longitude).altitude > HORIZON;
}

export function conditionHolds(
  when: ActionCondition,
  siteId: string,
  eventSensorId: string,
  world: ConditionWorld,
): boolean {
  const values = world.readings(when.sensor ?? eventSensorId);
  for (const name of READING_NAMES) {
    const bound = when[name];
    if (!bound) continue;
    const v = values[name];
    if (v === undefined) return false;
    if (bound.below !== undefined && !(v < bound.below)) return false;
    if (bound.above !== undefined && !(v > bound.above)) return false;
  }
  if (when.sun) {
    const place = world.location(siteId);
    if (!place) return false;
    if (sunIsUp(world.now(), place.latitude, place.longitude) !== (when.sun === 'day')) return false;
  }
  return true;
}

/** `when` of `POST /sensor/action`: reading bounds by reading name, `sensor`, `sun`. */
export function parseCondition(raw: unknown): ActionCondition {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('when must be an object');
  const body = raw as Body;
  const out: ActionCondition = {};
  const keys = Object.keys(body);
  if (keys.length === 0) throw invalid('when must have at least one condition');
  for (const key of keys) {
    const v = body[key];
    if (key === 'sensor') {
      if (typeof v !== 'string' || v.length === 0 || v.length > 64)
        throw invalid('when.sensor must be a sensor id');
      out.sensor = v;
    } else if (key === 'sun') {
      if (v !== 'day' && v !== 'night') throw invalid('when.sun must be "day" or "night"');
      out.sun = v;
    } else if ((READING_NAMES as readonly string[]).includes(key)) {
      out[key as ReadingName] = bound(key, v);
    } else {
      throw invalid(
        `when.${key} is not a condition (a reading name: ${READING_NAMES.join(', ')}; sensor; sun)`,
      );
    }
  }
  if (out.sensor !== undefined && !READING_NAMES.some((n) => out[n]))
    throw invalid('when.sensor needs a reading bound');
  return out;
}

function bound(name: string, v: unknown): Bound {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalid(`when.${name} must be an object`);
  const b = v as Body;
  const out: Bound = {};
  for (const key of Object.keys(b)) {
    if (key !== 'below' && key !== 'above') throw invalid(`when.${name} takes only below and above`);
    const n = b[key];
    if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(`when.${name}.${key} must be a number`);
    out[key] = n;
  }
  if (out.below === undefined && out.above === undefined) throw invalid(`when.${name} needs below or above`);
  return out;
}
