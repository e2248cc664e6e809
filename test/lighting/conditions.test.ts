/** Conditions of sensor actions, judged against given readings, location and time. */
import { describe, expect, it } from 'vitest';
import { conditionHolds, sunIsUp } from '../../plugins/lighting/domain/conditions.ts';

const HELSINKI = { latitude: 60.17, longitude: 24.94 };

const world = (readings: Record<string, Record<string, number>>, at: string, place = HELSINKI) => ({
  readings: (id: string) => readings[id] ?? {},
  location: () => place,
  now: () => Date.parse(at),
});

describe('action conditions', () => {
  it('the sun is up at noon in June and down at midnight in December in Helsinki', () => {
    expect(sunIsUp(Date.parse('2026-06-21T10:00:00Z'), HELSINKI.latitude, HELSINKI.longitude)).toBe(true);
    expect(sunIsUp(Date.parse('2026-12-21T22:00:00Z'), HELSINKI.latitude, HELSINKI.longitude)).toBe(false);
    // Polar night in Tromsø: down all day.
    expect(sunIsUp(Date.parse('2026-12-21T11:00:00Z'), 69.65, 18.96)).toBe(false);
  });

  it('reading bounds are strict, unknown readings do not hold, and another sensor can be named', () => {
    const w = world({ s1: { illuminance: 29 }, s2: { temperature: 18 } }, '2026-12-21T22:00:00Z');
    expect(conditionHolds({ illuminance: { below: 30 } }, 'site', 's1', w)).toBe(true);
    expect(conditionHolds({ illuminance: { below: 29 } }, 'site', 's1', w)).toBe(false);
    expect(conditionHolds({ illuminance: { above: 10, below: 30 } }, 'site', 's1', w)).toBe(true);
    expect(conditionHolds({ humidity: { below: 50 } }, 'site', 's1', w)).toBe(false);
    expect(conditionHolds({ sensor: 's2', temperature: { below: 19 } }, 'site', 's1', w)).toBe(true);
    expect(conditionHolds({ illuminance: { below: 30 }, sun: 'night' }, 'site', 's1', w)).toBe(true);
    expect(conditionHolds({ illuminance: { below: 30 }, sun: 'day' }, 'site', 's1', w)).toBe(false);
  });

  it('a sun condition without a site location does not hold', () => {
    const w = { ...world({}, '2026-06-21T10:00:00Z'), location: () => null };
    expect(conditionHolds({ sun: 'day' }, 'site', 's1', w)).toBe(false);
    expect(conditionHolds({ sun: 'night' }, 'site', 's1', w)).toBe(false);
  });
});
