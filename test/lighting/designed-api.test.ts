/** The methods the spec lists without paths (README table), through real HTTP. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
beforeAll(async () => {
  h = await startLighting();
});
afterAll(() => h.t.stop());

const light = async (name: string, testid: string, type = 'dimmable') =>
  (await h.call('POST', '/light', { name, type, vendor: 'test', testid })).body as Json;

describe('site data', () => {
  it('GET returns the whole site and PUT renames it', async () => {
    const got = await h.call('GET', '');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      siteid: h.siteid,
      name: 'Test',
      lights: [],
      scenes: [],
      groups: [],
      sensors: [],
    });
    const put = await h.call('PUT', '', { name: 'Koti' });
    expect(put.body.name).toBe('Koti');
    expect((await h.t.admin('GET', `/admin/sites/${h.siteid}`)).body).toMatchObject({ name: 'Koti' });
    expect((await h.call('PUT', '', { name: '' })).status).toBe(400);
    expect((await h.call('PUT', '', { name: 'x', colour: 1 })).body.message).toMatch(/unknown field colour/);
  });

  it('GET /connection lists each driver of the site with its state', async () => {
    const res = await h.call('GET', '/connection');
    expect(res.body).toEqual([
      { _id: 'td', vendor: 'test', connected: true, since: expect.any(String), devices: 0 },
    ]);
  });

  it('GET /subdef/next gives the smallest free sender id and 409 when the range is full', async () => {
    const first = await h.call('GET', '/subdef/next?vendor=enocean');
    expect(first.body).toEqual({ vendor: 'enocean', subdef: 'ff:80:00:00' });
    await h.call('POST', '/light', {
      name: 'E',
      type: 'binary',
      vendor: 'enocean',
      enoceanid: 'e1',
      subdef: 'ff:80:00:00',
    });
    expect((await h.call('GET', '/subdef/next?vendor=enocean')).body.subdef).toBe('ff:80:00:01');
    // docs/lighting.md#sender-ids-subdef: a Base ID gives 128 sender ids; when every one is taken the answer is 409.
    for (let n = 1; n < 128; n++) {
      const subdef = `ff:80:00:${n.toString(16).padStart(2, '0')}`;
      const res = await h.call('POST', '/light', {
        name: `E${n}`,
        type: 'binary',
        vendor: 'enocean',
        enoceanid: `e${n + 1}`,
        subdef,
      });
      expect(res.status).toBe(201);
    }
    expect(await h.call('GET', '/subdef/next?vendor=enocean')).toMatchObject({
      status: 409,
      body: { message: 'all 128 enocean sender ids from ff:80:00:00 are in use' },
    });
    // Another vendor's ids are its own.
    expect((await h.call('GET', '/subdef/next?vendor=test')).body.subdef).toBe('ff:80:00:00');
  });
});

describe('lights: create, modify, delete', () => {
  it('creates with 201 and the <vendor>id field, refuses duplicates and bad fields', async () => {
    const res = await h.call('POST', '/light', {
      name: 'Lamp',
      type: 'dimmable',
      vendor: 'test',
      testid: 'L1',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Lamp', testid: 'L1', siteid: h.siteid, on: false, bri: 0 });
    expect(res.body).not.toHaveProperty('protocolid');
    const dup = await h.call('POST', '/light', {
      name: 'Lamp 2',
      type: 'dimmable',
      vendor: 'test',
      testid: 'L1',
    });
    expect(dup.status).toBe(409);
    expect((await h.call('POST', '/light', { name: 'x', type: 'dimmable', vendor: 'test' })).body).toEqual({
      message: 'testid is required',
    });
    expect(
      (
        await h.call('POST', '/light', {
          name: 'x',
          type: 'dimmable',
          vendor: 'test',
          testid: 'q',
          subdef: 'zz',
        })
      ).status,
    ).toBe(400);
  });

  it('modifies by _id in the body and deletes by _id in the path, cleaning up references', async () => {
    const a = await light('A', 'a1');
    const mod = await h.call('PUT', '/light', { _id: a._id, name: 'A2', type: 'binary' });
    expect(mod.body).toMatchObject({ _id: a._id, name: 'A2', type: 'binary', testid: 'a1' });
    const scene = (await h.call('POST', '/scene', { name: 'S', state: [{ _id: a._id, on: true, bri: 9 }] }))
      .body;
    const group = (await h.call('POST', '/light/group', { name: 'G', lights: [a._id] })).body;
    expect((await h.call('DELETE', `/light/${a._id}`)).status).toBe(204);
    expect((await h.call('GET', '/light')).body.some((l: Json) => l._id === a._id)).toBe(false);
    const scenes = (await h.call('GET', '/scene')).body;
    expect(scenes.find((s: Json) => s._id === scene._id).state).toEqual([]);
    const groups = (await h.call('GET', '/light/group')).body;
    expect(groups.find((g: Json) => g._id === group._id).lights).toEqual([]);
    expect((await h.call('DELETE', `/light/${a._id}`)).status).toBe(404);
  });
});

describe('scenes: create, modify, delete', () => {
  it('refuses entries naming lights of no site light and keeps the stored scene on a rejected change', async () => {
    const a = await light('SceneLamp', 's1');
    expect(
      (await h.call('POST', '/scene', { name: 'Bad', state: [{ _id: 'ghost', on: true, bri: 1 }] })).status,
    ).toBe(404);
    const s = (await h.call('POST', '/scene', { name: 'Movie', state: [{ _id: a._id, on: true, bri: 20 }] }))
      .body;
    expect(
      (await h.call('PUT', '/scene', { _id: s._id, state: [{ _id: a._id, on: true, bri: 300 }] })).status,
    ).toBe(400);
    const renamed = await h.call('PUT', '/scene', { _id: s._id, name: 'Film' });
    expect(renamed.body).toMatchObject({ name: 'Film', state: [{ _id: a._id, on: true, bri: 20 }] });
    const applied = await h.call('PUT', `/scene/${s._id}/apply`);
    expect(applied.body).toMatchObject({ _id: s._id, state: [{ _id: a._id, on: true, bri: 20 }] });
    expect((await h.call('DELETE', `/scene/${s._id}`)).status).toBe(204);
    expect((await h.call('PUT', '/scene/apply', { _id: s._id })).status).toBe(404);
  });
});

describe('groups and toggle', () => {
  it('toggles all off when any is on, then back to their last levels', async () => {
    const a = await light('Ga', 'ga');
    const b = await light('Gb', 'gb');
    const g = (await h.call('POST', '/light/group', { name: 'Kitchen', lights: [a._id, b._id] })).body;
    expect(g).toMatchObject({ name: 'Kitchen', on: false, bri: 0 });
    await h.call('PUT', '/light/state', { _id: a._id, on: true, bri: 80 });
    await expect
      .poll(async () => (await h.call('GET', '/light/group')).body.find((x: Json) => x._id === g._id))
      .toMatchObject({
        on: true,
        bri: 80,
      });
    const off = await h.call('PUT', '/light/group/toggle', { _id: g._id });
    expect(off.body).toMatchObject({ on: false, failed: [] });
    await expect
      .poll(async () => (await h.call('GET', '/light/group')).body.find((x: Json) => x._id === g._id).on)
      .toBe(false);
    const on = await h.call('PUT', '/light/group/toggle', { _id: g._id });
    expect(on.body.state).toEqual([
      { _id: a._id, on: true, bri: 80 },
      { _id: b._id, on: true, bri: 255 },
    ]);
    const renamed = await h.call('PUT', '/light/group', { _id: g._id, name: 'Keittiö', lights: [a._id] });
    expect(renamed.body).toMatchObject({ name: 'Keittiö', lights: [a._id] });
    expect((await h.call('PUT', '/light/group', { _id: g._id, lights: ['ghost'] })).status).toBe(404);
    expect((await h.call('DELETE', `/light/group/${g._id}`)).status).toBe(204);
    expect((await h.call('PUT', '/light/group/toggle', { _id: g._id })).status).toBe(404);
  });
});

describe('sensors and actions', () => {
  it('CRUD of sensors; actions bound to events set lights, apply scenes and toggle groups', async () => {
    const lamp = await light('Porch', 'p1');
    const scene = (
      await h.call('POST', '/scene', { name: 'Night', state: [{ _id: lamp._id, on: true, bri: 5 }] })
    ).body;
    const group = (await h.call('POST', '/light/group', { name: 'Out', lights: [lamp._id] })).body;
    const s = await h.call('POST', '/sensor', {
      name: 'Door',
      vendor: 'test',
      testid: 'btn',
      type: 'button',
      events: ['1'],
    });
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({ name: 'Door', testid: 'btn', type: 'button', events: ['1'], actions: {} });
    const mod = await h.call('PUT', '/sensor', { _id: s.body._id, name: 'Front door' });
    expect(mod.body.name).toBe('Front door');

    const add = (event: string, action: unknown) =>
      h.call('POST', '/sensor/action', { _id: s.body._id, event, action });
    expect((await add('1', { type: 'light', _id: lamp._id, on: true, bri: 200 })).status).toBe(201);
    await add('2', { type: 'scene', _id: scene._id });
    const withToggle = await add('long', { type: 'group/toggle', _id: group._id });
    expect(withToggle.body.events).toEqual(['1', '2', 'long']);
    expect((await add('3', { type: 'scene', _id: 'ghost' })).status).toBe(404);

    const fired = async (event: string) => {
      const before = h.driver.commands.length;
      const res = await h.call('POST', '/sensor/event', { _id: s.body._id, event });
      expect(res.status).toBe(202);
      return h.driver.commands.slice(before).map((c) => c.level);
    };
    expect(await fired('1')).toEqual([{ on: true, bri: 200 }]);
    expect(await fired('2')).toEqual([{ on: true, bri: 5 }]);
    await expect
      .poll(async () => (await h.call('GET', '/light')).body.find((l: Json) => l._id === lamp._id).bri)
      .toBe(5);
    expect(await fired('long')).toEqual([{ on: false, bri: 0 }]);
    expect(await fired('unbound')).toEqual([]);
    const recent = (await h.call('GET', '/sensor/event')).body;
    expect(recent.slice(0, 4).map((e: Json) => e.event)).toEqual(['unbound', 'long', '2', '1']);

    const actionId = withToggle.body.actions.long[0].actionid;
    const removed = await h.call('DELETE', `/sensor/${s.body._id}/action/${actionId}`);
    expect(removed.body.actions.long).toBeUndefined();
    expect(await fired('long')).toEqual([]);
    expect((await h.call('DELETE', `/sensor/${s.body._id}`)).status).toBe(204);
    expect((await h.call('POST', '/sensor/event', { _id: s.body._id, event: '1' })).status).toBe(404);
  });
});

describe('rejected requests change nothing', () => {
  it('leaves the whole site as it was after a series of bad requests', async () => {
    const before = (await h.call('GET', '')).body;
    const configFile = () => readFile(path.join(h.t.dataDir, 'lighting.config.json'), 'utf8');
    const storedBefore = await configFile();
    const some = before.lights[0]._id;
    const bad: Array<[string, string, unknown]> = [
      ['POST', '/light', { name: 'x', type: 'dimmable', vendor: 'Bad Vendor', badid: 'q' }],
      ['PUT', '/light', { _id: some, type: 'rgb' }],
      ['PUT', '/light', { _id: 'ghost', name: 'x' }],
      ['POST', '/scene', { name: 'x', state: 'all' }],
      ['POST', '/light/group', { name: 'x', lights: [1, 2] }],
      ['POST', '/sensor', { name: 'x', vendor: 'test', type: 'button' }],
      ['POST', '/sensor/action', { _id: 'ghost', event: '1', action: { type: 'scene', _id: 'x' } }],
      ['PUT', '', ['not', 'an', 'object']],
      ['PUT', '/light/state', { _id: some, on: true, bri: -1 }],
    ];
    for (const [method, path, body] of bad) {
      const res = await h.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await h.call('GET', '')).body).toEqual(before);
    // Nothing stored changed either: the durable file is byte for byte what it was.
    expect(await configFile()).toBe(storedBefore);
  });
});
