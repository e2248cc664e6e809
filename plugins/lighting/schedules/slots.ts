/**
 * When a schedule is due: its slots, in the hub's local time zone. A slot is one moment a schedule runs.
 * Local calendar arithmetic goes through `new Date(y, m, d, h, min)`, which moves a time that does not
 * exist on a spring-forward day to the hour after and takes the first of a repeated autumn hour, so a
 * daily slot happens once on every day, DST days included.
 */
import { getTimes } from 'suncalc';

/** In `Date#getDay` order. */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export type SunEvent = 'sunrise' | 'sunset';

export interface When {
  /** `HH:MM`, local time; or `sun`. */
  at?: string;
  /** Sunrise or sunset at the site, shifted by `offset` minutes (negative: before). */
  sun?: { event: SunEvent; offset: number };
  days: readonly Weekday[];
}

export interface Place {
  latitude: number;
  longitude: number;
}

const DAY_MS = 86_400_000;
/** Offsets are bounded (±180 min), so looking one day either side of a range finds every slot in it. */
export const MAX_OFFSET_MINUTES = 180;

/** The slot on the local day `y-m-d`, or null (another weekday, no location, or no sunrise that day). */
function slotOn(when: When, y: number, m: number, d: number, place: Place | null): number | null {
  const noon = new Date(y, m, d, 12);
  if (!when.days.includes(WEEKDAYS[noon.getDay()]!)) return null;
  if (when.at) {
    const [h, min] = when.at.split(':').map(Number) as [number, number];
    return new Date(y, m, d, h, min).getTime();
  }
  if (!when.sun || !place) return null;
  const t = getTimes(noon, place.latitude, place.longitude)[when.sun.event]?.getTime() ?? Number.NaN;
  // Polar day or night: no sunrise or sunset that day.
  return Number.isNaN(t) ? null : t + when.sun.offset * 60_000;
}

/** Every slot whose local day lies between the days of `from` and `to`, one day of margin each side. */
function slotsAround(when: When, from: number, to: number, place: Place | null): number[] {
  const out: number[] = [];
  const start = new Date(from - DAY_MS);
  const day = new Date(start.getFullYear(), start.getMonth(), start.getDate(), 12);
  while (day.getTime() <= to + DAY_MS) {
    const s = slotOn(when, day.getFullYear(), day.getMonth(), day.getDate(), place);
    if (s !== null) out.push(s);
    day.setDate(day.getDate() + 1);
  }
  return out;
}

/** The first slot after `after`, within eight days (a week plus margin), or null. */
export function nextSlot(when: When, after: number, place: Place | null): number | null {
  for (const s of slotsAround(when, after, after + 8 * DAY_MS, place)) if (s > after) return s;
  return null;
}

/** The latest slot in (`from`, `to`], or null. */
export function latestSlot(when: When, from: number, to: number, place: Place | null): number | null {
  let found: number | null = null;
  for (const s of slotsAround(when, from, to, place)) if (s > from && s <= to) found = s;
  return found;
}
