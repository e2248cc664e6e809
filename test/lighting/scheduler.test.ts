/** The scheduler's rule on a hand-driven clock: slots, weekdays, DST, sunrise/sunset, catch-up and clock jumps. */
// Files share a worker process (isolate: false): the zone goes back to what it was once this file is done.
const zoneBefore = process.env.TZ;
process.env.TZ = 'Europe/Berlin';

import { afterAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../plugins/lighting/schedules/scheduler.ts';
import { nextSlot, type Place } from '../../plugins/lighting/schedules/slots.ts';
import type { ScheduleRecord } from '../../plugins/lighting/schedules/types.ts';
import { ManualClock } from './manual-clock.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const BERLIN: Place = { latitude: 52.52, longitude: 13.405 };
const local = (s: string) => new Date(s).getTime(); // no zone suffix: local (Europe/Berlin) time

afterAll(() => {
  if (zoneBefore === undefined) delete process.env.TZ;
  else process.env.TZ = zoneBefore;
});

function schedule(over: Partial<ScheduleRecord>): ScheduleRecord {
  return {
    _id: 's1',
    siteid: 'site',
    name: 'Wake',
    enabled: true,
    at: '07:00',
    days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
    action: { type: 'light', _id: 'l', on: true, bri: 200 },
    ...over,
  };
}

function setup(s: ScheduleRecord, start: number, opts: { handled?: number; catchUpMin?: number } = {}) {
  const clock = new ManualClock(start);
  const handled = new Map<string, number>([[s._id, opts.handled ?? start]]);
  const runs: string[] = [];
  const scheduler = new Scheduler({
    clock,
    catchUpMs: (opts.catchUpMin ?? 15) * MIN,
    schedules: () => [s],
    placeOf: () => BERLIN,
    handled: (id) => handled.get(id),
    setHandled: (id, at) => handled.set(id, at),
    run: (_s, slot) => runs.push(new Date(slot).toString().slice(0, 24)),
  });
  return { clock, handled, runs, scheduler };
}

describe('scheduler', () => {
  it('runs a time-of-day schedule once per slot on its weekdays only', () => {
    // Monday 2026-01-05, 06:00 local
    const { clock, runs, scheduler } = setup(schedule({ days: ['mon', 'wed'] }), local('2026-01-05T06:00'));
    scheduler.start();
    clock.advance(7 * DAY + 2 * HOUR);
    expect(runs).toEqual([
      'Mon Jan 05 2026 07:00:00',
      'Wed Jan 07 2026 07:00:00',
      'Mon Jan 12 2026 07:00:00',
    ]);
  });

  it('runs once on the spring-forward day (02:30 does not exist: 03:30) and once on the autumn day (02:30 twice)', () => {
    const spring = setup(schedule({ at: '02:30' }), local('2026-03-28T12:00'));
    spring.scheduler.start();
    spring.clock.advance(2 * DAY);
    expect(spring.runs).toEqual(['Sun Mar 29 2026 03:30:00', 'Mon Mar 30 2026 02:30:00']);

    const autumn = setup(schedule({ at: '02:30' }), local('2026-10-24T12:00'));
    autumn.scheduler.start();
    autumn.clock.advance(2 * DAY);
    expect(autumn.runs).toEqual(['Sun Oct 25 2026 02:30:00', 'Mon Oct 26 2026 02:30:00']);
  });

  it('runs at sunset with its offset, at the site location', () => {
    const s = schedule({ sun: { event: 'sunset', offset: -30 } });
    delete s.at;
    const { clock, runs, scheduler } = setup(s, local('2026-06-21T12:00'));
    scheduler.start();
    clock.advance(12 * HOUR);
    expect(runs).toHaveLength(1);
    // Berlin sunset on 21 June 2026 is at 21:33 CEST; 30 min before: 21:03 (±2 min for the model).
    const at = local(`2026-06-21T${runs[0]!.slice(16, 21)}`);
    expect(Math.abs(at - local('2026-06-21T21:03'))).toBeLessThanOrEqual(2 * MIN);
    // No location: no slot.
    expect(nextSlot(s, local('2026-06-21T12:00'), null)).toBeNull();
  });

  it('a slot missed while the hub was down runs once at start when under the catch-up time, never when older', () => {
    const handledBefore = local('2026-01-05T06:00');
    const recent = setup(schedule({}), local('2026-01-05T07:10'), { handled: handledBefore });
    recent.scheduler.start();
    expect(recent.runs).toEqual(['Mon Jan 05 2026 07:00:00']);
    recent.clock.advance(HOUR);
    expect(recent.runs).toHaveLength(1);

    const old = setup(schedule({}), local('2026-01-05T07:20'), { handled: handledBefore });
    old.scheduler.start();
    expect(old.runs).toEqual([]);
    // Days missed: only the latest slot could run, and only within the catch-up time.
    const days = setup(schedule({}), local('2026-01-09T07:05'), { handled: handledBefore });
    days.scheduler.start();
    expect(days.runs).toEqual(['Fri Jan 09 2026 07:00:00']);
  });

  it('a wall clock that jumps forward over a slot follows the same rule; one set back never repeats a slot', () => {
    const a = setup(schedule({}), local('2026-01-05T06:55'));
    a.scheduler.start();
    a.clock.jump(3 * HOUR); // 09:55: the 07:00 slot is 175 min old
    a.clock.advance(2 * MIN);
    expect(a.runs).toEqual([]);

    const b = setup(schedule({}), local('2026-01-05T06:55'));
    b.scheduler.start();
    b.clock.jump(10 * MIN); // 07:05
    b.clock.advance(MIN);
    expect(b.runs).toEqual(['Mon Jan 05 2026 07:00:00']);
    b.clock.jump(-HOUR); // back to 06:06: 07:00 comes round again but already ran
    b.clock.advance(2 * HOUR);
    expect(b.runs).toEqual(['Mon Jan 05 2026 07:00:00']);
    b.clock.advance(DAY);
    expect(b.runs).toEqual(['Mon Jan 05 2026 07:00:00', 'Tue Jan 06 2026 07:00:00']);
  });

  it('a clock set back by more than a day (a wrong clock corrected) starts over instead of waiting for it', () => {
    const { clock, runs, scheduler } = setup(schedule({}), local('2026-01-05T06:00'), {
      handled: local('2099-01-01T07:00'),
    });
    scheduler.start();
    clock.advance(DAY);
    expect(runs).toEqual(['Mon Jan 05 2026 07:00:00']);
  });

  it('never sleeps longer than a minute, so a jump is seen quickly; stop clears the timer', () => {
    const { clock, scheduler } = setup(schedule({}), local('2026-01-05T00:00'));
    scheduler.start();
    expect(clock.pending).toBe(1);
    scheduler.stop();
    expect(clock.pending).toBe(0);
  });
});
