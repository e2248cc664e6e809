/** The schedule API on a real hub: CRUD in the site API's style, bad input, scopes, a run on a hand-driven clock, restarts. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { type Json, probePlugin, request } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { type TestDriverControl, testDriverType } from './test-driver.ts';

const MIN = 60_000;
let t: TestHub;
let lighting: LightingExports;
let driver: TestDriverControl;
let api: string;
let desk: Json;
let scene: Json;
let group: Json;

const call = (method: string, p: string, body?: unknown) => request(api + p, method, body);

async function withDriver(siteid: string) {
  const { factory, instances } = testDriverType();
  lighting.registerDriverType('test', factory);
  await lighting.addDriver({ id: 'td', type: 'test', site: siteid });
  driver = instances.get('td')!;
}

/** A local HH:MM two hours away from the real time, so the real clock never reaches it during the test. */
function farFromNow(): string {
  const d = new Date(Date.now() + 2 * 60 * MIN);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

beforeAll(async () => {
  t = await startTestHub({
    plugins: ['lighting'],
    extraPlugins: [probePlugin((l) => (lighting = l))],
  });
  const site = (await t.admin('POST', '/admin/sites', { name: 'Test' })).body as Json;
  api = `${t.url}/api/site/${site.sitekey}`;
  await withDriver(site.siteid);
  desk = (await call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  scene = (await call('POST', '/scene', { name: 'Evening', state: [{ _id: desk._id, on: true, bri: 90 }] }))
    .body;
  group = (await call('POST', '/light/group', { name: 'Study', lights: [desk._id] })).body;
});

afterAll(() => t?.stop());

describe('schedule API', () => {
  it('creates, lists, changes and deletes schedules with siteid, next and lastrun', async () => {
    const created = await call('POST', '/schedule', {
      name: 'Wake',
      at: '07:30',
      days: ['fri', 'mon'],
      action: { type: 'light', _id: desk._id, on: true, bri: 200 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Wake',
      enabled: true,
      at: '07:30',
      days: ['mon', 'fri'],
      siteid: expect.any(String),
      lastrun: null,
    });
    expect(new Date(created.body.next).getHours()).toBe(7);
    const list = await call('GET', '/schedule');
    expect(list.body.map((s: Json) => s._id)).toEqual([created.body._id]);

    const changed = await call('PUT', '/schedule', {
      _id: created.body._id,
      sun: { event: 'sunset', offset: 15 },
    });
    expect(changed.status).toBe(409);
    expect(changed.body.message).toMatch(/location/);
    expect((await call('PUT', '/location', { latitude: 52.52, longitude: 13.4 })).status).toBe(200);
    const sun = await call('PUT', '/schedule', {
      _id: created.body._id,
      sun: { event: 'sunset', offset: 15 },
    });
    expect(sun.status).toBe(200);
    expect(sun.body.at).toBeUndefined();
    expect(sun.body.sun).toEqual({ event: 'sunset', offset: 15 });

    const off = await call('PUT', '/schedule', { _id: created.body._id, enabled: false });
    expect(off.body.next).toBeNull();
    expect((await call('DELETE', `/schedule/${created.body._id}`)).status).toBe(204);
    expect((await call('DELETE', `/schedule/${created.body._id}`)).status).toBe(404);
    expect((await call('GET', '/schedule')).body).toEqual([]);
  });

  it('refuses bad input with a 400 naming the field, and unknown targets with 404', async () => {
    const action = { type: 'scene', _id: scene._id };
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', action }, /at or sun is required/],
      [{ name: 'x', at: '24:00', action }, /at must be/],
      [{ name: 'x', at: '07:00', sun: { event: 'sunset' }, action }, /either at or sun/],
      [{ name: 'x', sun: { event: 'noon' }, action }, /sun\.event/],
      [{ name: 'x', sun: { event: 'sunset', offset: 500 }, action }, /sun\.offset/],
      [{ name: 'x', at: '07:00', days: ['someday'], action }, /days must be/],
      [{ name: 'x', at: '07:00', days: [], action }, /days must be/],
      [{ name: 'x', at: '07:00', action: { type: 'group', _id: group._id, on: true } }, /action\.bri/],
      [{ name: 'x', at: '07:00', action: { type: 'dance', _id: 'a' } }, /action\.type/],
      [{ name: 'x', at: '07:00', action, colour: 'red' }, /unknown field colour/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/schedule', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    const gone = await call('POST', '/schedule', {
      name: 'x',
      at: '07:00',
      action: { type: 'scene', _id: 'nope' },
    });
    expect(gone.status).toBe(404);
    expect((await call('PUT', '/location', { latitude: 91, longitude: 0 })).status).toBe(400);
    expect((await call('GET', '/schedule')).body).toEqual([]);
  });

  it('runs on a hand-driven clock: a scene, a group at a level; deleting the target deletes the schedule', async () => {
    const clock = new ManualClock(new Date('2026-01-05T06:59:00').getTime());
    lighting.useScheduleClock(clock);
    const s = (
      await call('POST', '/schedule', {
        name: 'Study on',
        at: '07:00',
        action: { type: 'group', _id: group._id, on: true, bri: 140 },
      })
    ).body;
    const before = driver.commands.length;
    clock.advance(2 * MIN);
    await expect.poll(() => driver.commands.length).toBe(before + 1);
    expect(driver.commands.at(-1)!.level).toEqual({ on: true, bri: 140 });
    await expect
      .poll(async () => (await call('GET', '/schedule')).body[0].lastrun)
      .toMatchObject({ slot: new Date('2026-01-05T07:00:00').toISOString(), failed: 0 });

    await call('PUT', '/schedule', { _id: s._id, at: '08:00', action: { type: 'scene', _id: scene._id } });
    clock.advance(60 * MIN);
    await expect.poll(() => driver.commands.at(-1)!.level).toEqual({ on: true, bri: 90 });

    const temp = (
      await call('POST', '/scene', { name: 'Tmp', state: [{ _id: desk._id, on: false, bri: 0 }] })
    ).body;
    await call('PUT', '/schedule', { _id: s._id, action: { type: 'scene', _id: temp._id } });
    await call('DELETE', `/scene/${temp._id}`);
    await expect.poll(async () => (await call('GET', '/schedule')).body).toEqual([]);
  });

  it('survives a restart; a slot missed while down runs once when recent, and is skipped when older', async () => {
    const at = farFromNow();
    const s = (
      await call('POST', '/schedule', {
        name: 'Later',
        at,
        action: { type: 'light', _id: desk._id, on: true, bri: 33 },
      })
    ).body;
    const file = JSON.parse(await readFile(path.join(t.dataDir, 'lighting.schedules.json'), 'utf8'));
    expect(file.schedules.map((x: Json) => x._id)).toEqual([s._id]);
    const slot = new Date(s.next).getTime();

    // The same slot next day, so the second restart is not refused only because the first one ran it.
    for (const [late, runs] of [
      [10 * MIN, 1],
      [24 * 60 * MIN + 20 * MIN, 0],
    ] as const) {
      t = await t.restart();
      await withDriver(s.siteid);
      api = api.replace(/^http:\/\/[^/]+/, t.url);
      expect((await call('GET', '/schedule')).body.map((x: Json) => x._id)).toEqual([s._id]);
      const before = driver.commands.length;
      lighting.useScheduleClock(new ManualClock(slot + late));
      // A marker command to the same light goes behind whatever the scheduler sent when the clock was set:
      // once it reaches the driver, every schedule run decided then has reached it too.
      expect((await call('PUT', '/light/state', { _id: desk._id, on: false, bri: 0 })).status).toBe(200);
      await expect.poll(() => driver.commands.at(-1)?.level).toEqual({ on: false, bri: 0 });
      const ran = driver.commands.slice(before, -1).filter((c) => c.level.on && c.level.bri === 33);
      expect(ran.length, `missed by ${late / MIN} min`).toBe(runs);
    }
  });

  it('needs the schedules:write scope to change schedules; lights:read to list them', async () => {
    const siteid = (await call('GET', '')).body.siteid as string;
    lighting.setSiteTokenVerifier(async (token) => ({ scopes: token.split('+') }));
    const asToken = (scopes: string, method: string, body?: unknown) =>
      request(`${t.url}/api/site/${siteid}/schedule`, method, body, { authorization: `Bearer ${scopes}` });
    const body = { name: 'Token', at: '06:00', action: { type: 'scene', _id: scene._id } };
    const refused = await asToken('lights:read+site:admin', 'POST', body);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('this token lacks the schedules:write scope');
    expect((await asToken('schedules:write', 'POST', body)).status).toBe(201);
    expect((await asToken('lights:read', 'GET')).status).toBe(200);
    lighting.setSiteTokenVerifier(null);
  });
});
