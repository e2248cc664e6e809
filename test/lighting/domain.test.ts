import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../core/http/errors.ts';
import { briToLevel254, briToPercent, level254ToBri, percentToBri } from '../../drivers/lighting/index.ts';
import {
  parseActionAdd,
  parseLightCreate,
  parseLightModify,
  parseSceneCreate,
} from '../../plugins/lighting/domain/bodies.ts';
import { COLOUR_KEYS, hasColourFields } from '../../plugins/lighting/domain/colour.ts';
import { LateError, withDeadline } from '../../plugins/lighting/domain/deadline.ts';
import { groupLevel, togglePlan } from '../../plugins/lighting/domain/groups.ts';
import { LatestWins } from '../../plugins/lighting/domain/latest-wins.ts';
import { normalizeLevel, parseLevel } from '../../plugins/lighting/domain/level.ts';
import { nextSubdef } from '../../plugins/lighting/domain/subdef.ts';

const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    return (err as HttpError).message;
  }
  throw new Error('expected a 400');
};

describe('light level rules (spec: bri 0..255, on false exactly when bri 0)', () => {
  it('keeps dimmable levels and snaps binary lights to 0 or 255', () => {
    expect(normalizeLevel('dimmable', { on: true, bri: 127 })).toEqual({ on: true, bri: 127 });
    expect(normalizeLevel('binary', { on: true, bri: 1 })).toEqual({ on: true, bri: 255 });
    expect(normalizeLevel('binary', { on: false, bri: 0 })).toEqual({ on: false, bri: 0 });
  });
  it('resolves contradictory input to off', () => {
    expect(normalizeLevel('dimmable', { on: false, bri: 200 })).toEqual({ on: false, bri: 0 });
    expect(normalizeLevel('dimmable', { on: true, bri: 0 })).toEqual({ on: false, bri: 0 });
  });
  it('refuses wrong types, out-of-range and missing fields with a message naming the field', () => {
    expect(message(() => parseLevel({ on: true, bri: 256 }))).toMatch(/bri must be an integer from 0 to 255/);
    expect(message(() => parseLevel({ on: true, bri: 1.5 }))).toMatch(/bri/);
    expect(message(() => parseLevel({ on: 'yes', bri: 1 }))).toMatch(/on must be true or false/);
    expect(message(() => parseLevel({ on: true }))).toMatch(/bri is required/);
  });
});

describe('brightness scaling helpers', () => {
  it('maps the ends exactly and keeps any non-zero level non-zero', () => {
    expect([briToPercent(0), briToPercent(1), briToPercent(255)]).toEqual([0, 1, 100]);
    expect([percentToBri(0), percentToBri(100), percentToBri(50)]).toEqual([0, 255, 128]);
    expect([briToLevel254(0), briToLevel254(1), briToLevel254(255)]).toEqual([0, 1, 254]);
    expect([level254ToBri(254), level254ToBri(0)]).toEqual([255, 0]);
  });
});

describe('request bodies', () => {
  it('takes the protocol id from <vendor>id (spec) and rejects unknown fields', () => {
    const l = parseLightCreate({ name: 'Desk', type: 'dimmable', vendor: 'zigbee', zigbeeid: '0x00/1' });
    expect(l).toEqual({
      name: 'Desk',
      type: 'dimmable',
      vendor: 'zigbee',
      protocolid: '0x00/1',
      subdef: null,
    });
    expect(message(() => parseLightCreate({ ...l, zigbeeid: 'x', colour: 'red' }))).toMatch(
      /unknown field colour/,
    );
    expect(message(() => parseLightCreate({ name: 'x', type: 'rgb', vendor: 'zigbee' }))).toMatch(
      /type must be/,
    );
    expect(message(() => parseLightCreate({ name: 'x', type: 'binary', vendor: 'zigbee' }))).toMatch(
      /zigbeeid is required/,
    );
  });
  it('requires the new protocol id when the vendor of a light changes', () => {
    const cur = { name: 'a', type: 'binary' as const, vendor: 'zigbee', protocolid: 'z', subdef: null };
    expect(message(() => parseLightModify({ _id: 'x', vendor: 'hue' }, cur))).toMatch(/hueid is required/);
    expect(parseLightModify({ _id: 'x', vendor: 'hue', hueid: 'h' }, cur).protocolid).toBe('h');
    expect(parseLightModify({ _id: 'x', driver: 'hub2' }, cur).driver).toBe('hub2');
    expect(parseLightModify({ _id: 'x', driver: null }, { ...cur, driver: 'hub2' })).not.toHaveProperty(
      'driver',
    );
  });
  it('validates every scene entry and every action type', () => {
    expect(message(() => parseSceneCreate({ name: 's', state: [{ _id: 'a', on: true, bri: 300 }] }))).toMatch(
      /bri/,
    );
    expect(
      message(() => parseActionAdd({ _id: 's', event: '1', action: { type: 'dance', _id: 'x' } })),
    ).toMatch(/action.type/);
    expect(parseActionAdd({ _id: 's', event: '1', action: { type: 'scene', _id: 'x' } }).action).toEqual({
      type: 'scene',
      _id: 'x',
    });
  });
});

describe('subdef allocation (docs/lighting.md#sender-ids-subdef: 128 ids from the base)', () => {
  it('returns the smallest free id and null when the range is full', () => {
    expect(nextSubdef('ff:ee:33:00', ['ff:ee:33:00', 'ff:ee:33:01', 'ff:ee:33:03'])).toBe('ff:ee:33:02');
    const all = Array.from({ length: 128 }, (_, i) => `ff:ee:33:${i.toString(16).padStart(2, '0')}`);
    expect(nextSubdef('ff:ee:33:00', all)).toBeNull();
  });
});

describe('groups', () => {
  const m = (id: string, on: boolean, bri: number, lastOnBri: number) => ({
    _id: id,
    level: { on, bri },
    lastOnBri,
  });
  it('is on when any member is on; toggling turns all off, then back to last levels', () => {
    expect(groupLevel([m('a', false, 0, 10), m('b', true, 90, 90)])).toEqual({ on: true, bri: 90 });
    expect(togglePlan([m('a', false, 0, 10), m('b', true, 90, 90)]).map((p) => p.level.on)).toEqual([
      false,
      false,
    ]);
    expect(togglePlan([m('a', false, 0, 10), m('b', false, 0, 0)]).map((p) => p.level.bri)).toEqual([
      10, 255,
    ]);
  });
});

describe('LatestWins coalescing', () => {
  it('sends the first command at once and only the last of those queued meanwhile', async () => {
    const sent: number[] = [];
    let release: () => void = () => {};
    const q = new LatestWins<string, number>(async (_k, v) => {
      sent.push(v);
      if (v === 1) await new Promise<void>((r) => (release = r));
    });
    const first = q.submit('a', 1);
    expect(sent).toEqual([1]);
    const queued = [q.submit('a', 2), q.submit('a', 3), q.submit('a', 4)];
    const other = q.submit('b', 9);
    release();
    await Promise.all([first, ...queued, other]);
    expect(sent).toEqual([1, 9, 4]);
    expect(q.busy).toBe(0);
  });
  it('rejects the callers of a command the driver refused', async () => {
    const q = new LatestWins<string, number>(async () => {
      throw new Error('link down');
    });
    await expect(q.submit('a', 1)).rejects.toThrow('link down');
    expect(q.busy).toBe(0);
  });
});

describe('withDeadline (calls with one bound share a timer)', () => {
  // The deadline clock is fake: time moves only when the test says so, so every bound is checked to the
  // millisecond and nothing depends on how fast the machine is.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const never = () => new Promise<never>(() => {});
  /** Follows a promise: `state()` says whether it is still open, resolved (with what) or rejected. */
  const watch = <T>(p: Promise<T>) => {
    let state: { open: true } | { ok: true; v: T } | { ok: false; e: unknown } = { open: true };
    p.then(
      (v) => {
        state = { ok: true, v };
      },
      (e: unknown) => {
        state = { ok: false, e };
      },
    );
    return () => state;
  };
  const late = (ms: number) => ({ ok: false, e: new LateError(ms) });

  it('passes results and errors through, and rejects only the calls still open at their deadline', async () => {
    const quick = watch(withDeadline(Promise.resolve(7), 40));
    const failing = watch(withDeadline(Promise.reject(new Error('refused')), 40));
    const hung = watch(withDeadline(never(), 40));
    await vi.advanceTimersByTimeAsync(0);
    expect(quick()).toEqual({ ok: true, v: 7 });
    expect(failing()).toEqual({ ok: false, e: new Error('refused') });
    await vi.advanceTimersByTimeAsync(20);
    // Started 20 ms later: its deadline is 20 ms after the first hung call's, not at the same tick.
    const hungLater = watch(withDeadline(never(), 40));
    const slow = watch(withDeadline(new Promise((r) => setTimeout(() => r('late but in time'), 30)), 40));
    await vi.advanceTimersByTimeAsync(19); // 39 ms after the first call
    expect(hung()).toEqual({ open: true });
    await vi.advanceTimersByTimeAsync(1); // 40 ms
    expect(hung()).toEqual(late(40));
    expect(hungLater()).toEqual({ open: true });
    expect(slow()).toEqual({ open: true });
    await vi.advanceTimersByTimeAsync(10); // 50 ms: the slow call answered 30 ms after it started
    expect(slow()).toEqual({ ok: true, v: 'late but in time' });
    await vi.advanceTimersByTimeAsync(9); // 59 ms
    expect(hungLater()).toEqual({ open: true });
    await vi.advanceTimersByTimeAsync(1); // 60 ms: 40 ms after it started
    expect(hungLater()).toEqual(late(40));
  });

  it('keeps separate bounds separate: a shorter bound started later is not held behind a longer one', async () => {
    const long = watch(withDeadline(never(), 80));
    const short = watch(withDeadline(never(), 20));
    await vi.advanceTimersByTimeAsync(20);
    expect(short()).toEqual(late(20));
    expect(long()).toEqual({ open: true });
    await vi.advanceTimersByTimeAsync(59);
    expect(long()).toEqual({ open: true });
    await vi.advanceTimersByTimeAsync(1);
    expect(long()).toEqual(late(80));
  });
});

describe('hasColourFields (the dimming fast path of PUT /light/state)', () => {
  it('sees each colour or transition field, and nothing in a plain dimming command', () => {
    for (const k of COLOUR_KEYS)
      expect(hasColourFields({ _id: 'x', on: true, bri: 1, [k]: 0 }), k).toBe(true);
    expect(hasColourFields({ _id: 'x', on: true, bri: 1 })).toBe(false);
    expect(hasColourFields({ on: true, bri: 1, ct: undefined, other: 5 })).toBe(false);
  });
});
