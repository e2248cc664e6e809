/**
 * Runs schedules at their slots. One rule covers a normal run, a hub that was down and a wall clock that
 * jumped: at every wake-up, each schedule runs once for its latest slot in (handled, now] that is at most
 * `catchUpMs` old; older missed slots are skipped. `handled` moves to the slot that ran (a new or re-enabled
 * schedule starts at its creation), so a slot never runs twice, also when the clock is set back. The timer never sleeps
 * longer than `maxSleepMs`, so a jump of the wall clock is noticed within that time (timers follow the
 * monotonic clock, schedules the wall clock). Rule and its reasons: plugins/lighting/README.md#schedules.
 */
import type { Clock } from './clock.ts';
import { latestSlot, nextSlot, type Place } from './slots.ts';
import type { ScheduleRecord } from './types.ts';

const DAY_MS = 86_400_000;

export interface SchedulerDeps {
  clock: Clock;
  catchUpMs: number;
  maxSleepMs?: number;
  schedules(): readonly ScheduleRecord[];
  placeOf(siteId: string): Place | null;
  handled(id: string): number | undefined;
  setHandled(id: string, at: number): void;
  run(schedule: ScheduleRecord, slot: number): void;
}

export class Scheduler {
  readonly #d: SchedulerDeps;
  #timer: unknown = null;
  #stopped = true;

  constructor(deps: SchedulerDeps) {
    this.#d = deps;
  }

  start(): void {
    this.#stopped = false;
    this.wake();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) this.#d.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** The next slot of a schedule after now (for the API), or null. */
  next(s: ScheduleRecord): number | null {
    return s.enabled ? nextSlot(s, this.#d.clock.now(), this.#d.placeOf(s.siteid)) : null;
  }

  /** Checks every schedule now and sleeps until the next slot; call after any change of schedules. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#timer !== null) this.#d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    const now = this.#d.clock.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (const s of this.#d.schedules()) {
      if (!s.enabled) continue;
      const place = this.#d.placeOf(s.siteid);
      let handled = this.#d.handled(s._id) ?? now;
      // A clock set back by more than a day (a wrong clock corrected): start over from now.
      if (handled > now + DAY_MS) {
        handled = now;
        this.#d.setHandled(s._id, now);
      }
      const slot = latestSlot(s, Math.max(handled, now - this.#d.catchUpMs), now, place);
      if (slot !== null) {
        this.#d.setHandled(s._id, slot);
        this.#d.run(s, slot);
      }
      const next = nextSlot(s, now, place);
      if (next !== null && next < soonest) soonest = next;
    }
    const sleep = Math.max(0, Math.min(soonest - now, this.#d.maxSleepMs ?? 60_000));
    this.#timer = this.#d.clock.setTimeout(() => this.wake(), sleep);
  }
}
