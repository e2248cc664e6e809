/**
 * Sensor event names are free text chosen by drivers and users (`1`, `long`, `motion`,
 * `enocean://ff:ee:33:00/12`), and they key the `actions` map of a sensor. A name such as `constructor` or
 * `toString` must not find Object.prototype's members, and `__proto__` must never become a key.
 */
import type { ActionRecord, SensorRecord } from '../types.ts';
import { type Body, invalid, str, strArray } from './check.ts';

/** The actions bound to one event: own entries only, never the prototype's. */
export function actionsFor(sensor: SensorRecord, event: string): ActionRecord[] {
  return Object.hasOwn(sensor.actions, event) ? (sensor.actions[event] ?? []) : [];
}

const MAX_EVENT = 64;

/** An event name from a request body: a non-empty string up to 64 characters, not `__proto__`. */
export function eventName(body: Body, field = 'event'): string {
  const event = str(body, field, { max: MAX_EVENT });
  if (event === '__proto__') throw invalid(`${field} must not be __proto__`);
  return event;
}

/**
 * A sensor's `events` list: names by the same rule as `eventName`, so every listed event can also be bound
 * to an action (a 65-character name could be listed but never bound).
 */
export function eventNames(body: Body, field = 'events'): string[] {
  const names = strArray(body, field, { max: 64 });
  for (const name of names) {
    if (name.length > MAX_EVENT) throw invalid(`${field} entries must be at most ${MAX_EVENT} characters`);
    if (name === '__proto__') throw invalid(`${field} must not list __proto__`);
  }
  return names;
}
