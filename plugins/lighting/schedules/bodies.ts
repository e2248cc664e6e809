/** Checks schedule and location bodies; every failure is a 400 naming the field. */
import { asObject, type Body, bool, bri, invalid, nested, onlyFields, str } from '../domain/check.ts';
import { MAX_OFFSET_MINUTES, type Place, WEEKDAYS, type Weekday } from './slots.ts';
import type { ScheduleAction, ScheduleRecord } from './types.ts';

export type ScheduleFields = Partial<Omit<ScheduleRecord, '_id' | 'siteid'>>;

const FIELDS = ['_id', 'siteid', 'name', 'enabled', 'at', 'sun', 'days', 'action', 'next', 'lastrun'];

function at(body: Body): string {
  const v = body.at;
  if (typeof v !== 'string' || !/^([01]\d|2[0-3]):[0-5]\d$/.test(v)) {
    throw invalid('at must be a local time HH:MM (00:00 to 23:59)');
  }
  return v;
}

function sun(body: Body): { event: 'sunrise' | 'sunset'; offset: number } {
  const o = asObject(body.sun, 'sun');
  return nested('sun', () => {
    onlyFields(o, ['event', 'offset']);
    if (o.event !== 'sunrise' && o.event !== 'sunset') throw invalid('event must be "sunrise" or "sunset"');
    const offset = o.offset ?? 0;
    if (typeof offset !== 'number' || !Number.isInteger(offset) || Math.abs(offset) > MAX_OFFSET_MINUTES) {
      throw invalid(`offset must be whole minutes from -${MAX_OFFSET_MINUTES} to ${MAX_OFFSET_MINUTES}`);
    }
    return { event: o.event, offset };
  });
}

function days(body: Body): Weekday[] {
  const v = body.days;
  if (!Array.isArray(v) || v.length === 0 || !v.every((d) => WEEKDAYS.includes(d as Weekday))) {
    throw invalid(`days must be a non-empty array of ${WEEKDAYS.join(', ')}`);
  }
  return WEEKDAYS.filter((d) => v.includes(d));
}

function action(body: Body): ScheduleAction {
  const a = asObject(body.action, 'action');
  return nested('action', () => {
    if (a.type === 'scene') {
      onlyFields(a, ['type', '_id']);
      return { type: 'scene', _id: str(a, '_id') };
    }
    if (a.type === 'group' || a.type === 'light') {
      onlyFields(a, ['type', '_id', 'on', 'bri']);
      return { type: a.type, _id: str(a, '_id'), on: bool(a, 'on'), bri: bri(a) };
    }
    throw invalid('type must be "scene", "group" or "light"');
  });
}

/** A create (`full`) or modify body. Giving `at` drops `sun` and the other way round. */
export function parseSchedule(value: unknown, full: boolean): ScheduleFields {
  const body = asObject(value);
  onlyFields(body, FIELDS);
  if (body.at !== undefined && body.sun !== undefined) throw invalid('give either at or sun, not both');
  if (full && body.at === undefined && body.sun === undefined) throw invalid('at or sun is required');
  const f: ScheduleFields = {};
  if (full || body.name !== undefined) f.name = str(body, 'name');
  if (body.enabled !== undefined) f.enabled = bool(body, 'enabled');
  if (body.at !== undefined) f.at = at(body);
  if (body.sun !== undefined) f.sun = sun(body);
  if (body.days !== undefined) f.days = days(body);
  if (full || body.action !== undefined) f.action = action(body);
  return f;
}

export function parseLocation(value: unknown): Place {
  const body = asObject(value);
  onlyFields(body, ['latitude', 'longitude']);
  const num = (field: 'latitude' | 'longitude', max: number) => {
    const v = body[field];
    if (v === undefined) throw invalid(`${field} is required`);
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > max) {
      throw invalid(`${field} must be a number from -${max} to ${max}`);
    }
    return v;
  };
  return { latitude: num('latitude', 90), longitude: num('longitude', 180) };
}
