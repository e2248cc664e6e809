/**
 * A clock tests drive by hand. `advance` moves both the wall clock and the timers (time passing);
 * `jump` moves only the wall clock (someone set the clock, NTP stepped it): timers keep their delays.
 */
import type { Clock } from '../../plugins/lighting/schedules/clock.ts';

export class ManualClock implements Clock {
  wall: number;
  #mono = 0;
  #timers = new Map<number, { due: number; fn: () => void }>();
  #next = 1;

  constructor(start: number) {
    this.wall = start;
  }
  now(): number {
    return this.wall;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { due: this.#mono + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Lets `ms` pass, firing timers in order at their moments. */
  advance(ms: number): void {
    const end = this.#mono + ms;
    for (;;) {
      let first: [number, { due: number; fn: () => void }] | undefined;
      for (const e of this.#timers) if (e[1].due <= end && (!first || e[1].due < first[1].due)) first = e;
      if (!first) break;
      this.wall += first[1].due - this.#mono;
      this.#mono = first[1].due;
      this.#timers.delete(first[0]);
      first[1].fn();
    }
    this.wall += end - this.#mono;
    this.#mono = end;
  }
  jump(ms: number): void {
    this.wall += ms;
  }
  get pending(): number {
    return this.#timers.size;
  }
}
