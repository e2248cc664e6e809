/** Schedules as stored in `lighting.schedules.json`. */
import type { Place, SunEvent, Weekday } from './slots.ts';

export type ScheduleAction =
  | { type: 'scene'; _id: string }
  | { type: 'group'; _id: string; on: boolean; bri: number }
  | { type: 'light'; _id: string; on: boolean; bri: number };

export interface ScheduleRecord {
  _id: string;
  siteid: string;
  name: string;
  enabled: boolean;
  at?: string;
  sun?: { event: SunEvent; offset: number };
  days: Weekday[];
  action: ScheduleAction;
}

export interface LastRun {
  /** When it ran (ISO). */
  at: string;
  /** The slot it ran for (ISO): later than `at` never, earlier when it was a catch-up. */
  slot: string;
  /** Lights the action could not hand to their driver. */
  failed: number;
}

export interface SchedulesDoc {
  schedules: ScheduleRecord[];
  /** Site id → its location, set once for sunrise and sunset. */
  locations: Record<string, Place>;
  /** Schedule id → every slot up to this time (ms) has been handled (run or deliberately skipped). */
  handled: Record<string, number>;
  lastrun: Record<string, LastRun>;
}
