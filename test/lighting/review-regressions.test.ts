/**
 * Bugs found in review of the lighting plugin, each pinned by the test named after it (real hub, real HTTP, the
 * test driver through the driver interface).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
let desk: Json;
let hall: Json;
let button: Json;

beforeAll(async () => {
  h = await startLighting();
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  hall = (await h.call('POST', '/light', { name: 'Hall', type: 'binary', vendor: 'test', testid: 'h1' }))
    .body;
  button = (await h.call('POST', '/sensor', { name: 'Wall', vendor: 'test', testid: 'b1', type: 'button' }))
    .body;
});
afterAll(() => h.t.stop());

const lightOf = async (id: string) =>
  (await h.call('GET', '/light')).body.find((l: Json) => l._id === id) as Json;
/** Status and body only (the harness also returns headers). */
const answer = (r: { status: number; body: Json }) => ({ status: r.status, body: r.body });
const serverErrors = () => h.t.logs.filter((l) => (l.level as number) >= 50);
const stateFile = async () =>
  JSON.parse(await readFile(path.join(h.t.dataDir, 'lighting.state.json'), 'utf8')) as Json;

describe('sensor event names that are Object.prototype members', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'POST /sensor/event with event %s runs no action and answers 202, not 500',
    async (event) => {
      const res = await h.call('POST', '/sensor/event', { _id: button._id, event });
      expect(answer(res)).toEqual({ status: 202, body: { _id: button._id, event, actions: 0 } });
    },
  );

  it('binds an action to an event named constructor, and it runs', async () => {
    const added = await h.call('POST', '/sensor/action', {
      _id: button._id,
      event: 'constructor',
      action: { type: 'light', _id: desk._id, on: true, bri: 33 },
    });
    expect(added.status).toBe(201);
    expect(added.body.actions.constructor).toEqual([expect.objectContaining({ _id: desk._id, bri: 33 })]);
    const before = h.driver.commands.length;
    expect(
      (await h.call('POST', '/sensor/event', { _id: button._id, event: 'constructor' })).body.actions,
    ).toBe(1);
    expect(h.driver.commands.slice(before).map((c) => c.level)).toEqual([{ on: true, bri: 33 }]);
  });

  it('refuses __proto__ as an event name with 400 and stores nothing', async () => {
    const before = (await h.call('GET', '/sensor')).body;
    for (const [method, p, body] of [
      [
        'POST',
        '/sensor/action',
        { _id: button._id, event: '__proto__', action: { type: 'scene', _id: 'x' } },
      ],
      ['POST', '/sensor/event', { _id: button._id, event: '__proto__' }],
    ] as const) {
      const res = await h.call(method, p, body);
      expect(answer(res)).toEqual({ status: 400, body: { message: 'event must not be __proto__' } });
    }
    expect((await h.call('GET', '/sensor')).body).toEqual(before);
  });

  it('a driver reporting such an event neither crashes nor logs an error', async () => {
    const errors = serverErrors().length;
    h.driver.press('b1', 'toString');
    h.driver.press('b1', '__proto__');
    await expect
      .poll(async () => (await h.call('GET', '/sensor/event')).body.slice(0, 2).map((e: Json) => e.event))
      .toEqual(['__proto__', 'toString']);
    expect(serverErrors().length).toBe(errors);
  });
});

describe('a light changed from dimmable to binary', () => {
  it('returns and stores only 0 or 255 afterwards (spec: binary lights)', async () => {
    const lamp = (
      await h.call('POST', '/light', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'l9' })
    ).body;
    await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 120 });
    await expect.poll(async () => (await lightOf(lamp._id)).bri).toBe(120);
    const changed = await h.call('PUT', '/light', { _id: lamp._id, type: 'binary' });
    expect(changed.body).toMatchObject({ type: 'binary', on: true, bri: 255 });
    expect(await lightOf(lamp._id)).toMatchObject({ on: true, bri: 255 });
    await expect
      .poll(async () => (await stateFile()).levels[lamp._id])
      .toMatchObject({ reported: { on: true, bri: 255 }, desired: { on: true, bri: 255 } });
  });
});

describe('scene entries', () => {
  it('refuses a scene that names one light twice, and stores nothing', async () => {
    const before = (await h.call('GET', '/scene')).body;
    const res = await h.call('POST', '/scene', {
      name: 'Twice',
      state: [
        { _id: desk._id, on: true, bri: 10 },
        { _id: desk._id, on: false, bri: 0 },
      ],
    });
    expect(answer(res)).toEqual({
      status: 400,
      body: { message: `state lists light ${desk._id} more than once` },
    });
    expect((await h.call('GET', '/scene')).body).toEqual(before);
  });

  it('stores entries normalised: binary levels 0 or 255, contradictory input as off', async () => {
    const scene = await h.call('POST', '/scene', {
      name: 'Mixed',
      state: [
        { _id: desk._id, on: false, bri: 90 },
        { _id: hall._id, on: true, bri: 20 },
      ],
    });
    expect(scene.body.state).toEqual([
      { _id: desk._id, on: false, bri: 0 },
      { _id: hall._id, on: true, bri: 255 },
    ]);
  });
});

describe('GET /subdef/next', () => {
  it('refuses a vendor that is no vendor name, or given twice, with 400', async () => {
    for (const q of ['vendor=Bad%20Vendor', 'vendor=a&vendor=b']) {
      const res = await h.call('GET', `/subdef/next?${q}`);
      expect(answer(res)).toEqual({
        status: 400,
        body: { message: 'vendor must be one lower-case vendor name (e.g. enocean)' },
      });
    }
  });
});
