/**
 * Sensor event names are free text chosen by drivers and users (`1`, `long`, `motion`,
 * `enocean://ff:ee:33:00/12`), and they key the `actions` map of a sensor. A name such as `constructor` or
 * `toString` must not find Object.prototype's members, and `__proto__` must never become a key.
 */
import type { ActionRecord, SensorRecord } from '../types.ts';
import { type Body, invalid, str } from './check.ts';

/** The actions bound to one event: own entries only, never the prototype's. */
export function actionsFor(sensor: SensorRecord, event: string): ActionRecord[] {
  return Object.hasOwn(sensor.actions, event) ? (sensor.actions[event] ?? []) : [];
}

/** An event name from a request body: a non-empty string up to 64 characters, not `__proto__`. */
export function eventName(body: Body, field = 'event'): string {
  const event = str(body, field, { max: 64 });
  if (event === '__proto__') throw invalid(`${field} must not be __proto__`);
  return event;
}
