/** The four documented calls (spec §Endpoints), under /api/site and the /site alias, through real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LightingHarness, request, startLighting } from './harness.ts';

let h: LightingHarness;
let desk: { _id: string };
let hall: { _id: string };

beforeAll(async () => {
  h = await startLighting();
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  hall = (await h.call('POST', '/light', { name: 'Hall', type: 'binary', vendor: 'test', testid: 'h1' }))
    .body;
});
afterAll(() => h.t.stop());

describe('GET /light', () => {
  it('lists the site lights with the spec fields', async () => {
    const res = await h.call('GET', '/light');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toMatchObject({
      _id: desk._id,
      siteid: h.siteid,
      name: 'Desk',
      type: 'dimmable',
      vendor: 'test',
      testid: 'd1',
      subdef: '',
      on: false,
      bri: 0,
    });
    expect(typeof res.body[0]._id).toBe('string');
  });

  it('answers on the /site alias too (the spec examples omit /api)', async () => {
    const res = await request(`${h.t.url}/site/${h.sitekey}/light`, 'GET');
    expect(res.status).toBe(200);
    expect(res.body.map((l: { name: string }) => l.name)).toEqual(['Desk', 'Hall']);
  });
});

describe('PUT /light/state', () => {
  it('hands the command to the driver and the stored state follows the device report', async () => {
    const res = await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 127 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: desk._id, on: true, bri: 127 });
    expect(h.driver.commands.at(-1)).toMatchObject({ protocolid: 'd1', level: { on: true, bri: 127 } });
    await expect
      .poll(async () => (await h.call('GET', '/light')).body[0])
      .toMatchObject({ on: true, bri: 127 });
  });

  it('stores only 0 or 255 for a binary light', async () => {
    const res = await request(`${h.t.url}/site/${h.sitekey}/light/state`, 'PUT', {
      _id: hall._id,
      on: true,
      bri: 20,
    });
    expect(res.body).toMatchObject({ on: true, bri: 255 });
    expect(h.driver.commands.at(-1)?.level).toEqual({ on: true, bri: 255 });
    await expect.poll(async () => (await h.call('GET', '/light')).body[1].bri).toBe(255);
  });

  it('switches off with on false and bri 0, and treats contradictory input as off', async () => {
    expect((await h.call('PUT', '/light/state', { _id: desk._id, on: false, bri: 0 })).body).toMatchObject({
      on: false,
      bri: 0,
    });
    expect((await h.call('PUT', '/light/state', { _id: desk._id, on: false, bri: 90 })).body).toMatchObject({
      on: false,
      bri: 0,
    });
    expect((await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 0 })).body).toMatchObject({
      on: false,
      bri: 0,
    });
  });

  it.each([
    ['out-of-range bri', { on: true, bri: 256 }, 400, /bri must be an integer from 0 to 255/],
    ['fractional bri', { on: true, bri: 2.5 }, 400, /bri/],
    ['wrong type of on', { on: 'true', bri: 3 }, 400, /on must be true or false/],
    ['missing bri', { on: true }, 400, /bri is required/],
  ])('refuses %s with a 400 {message}', async (_name, fields, status, message) => {
    const before = h.driver.commands.length;
    const res = await h.call('PUT', '/light/state', { _id: desk._id, ...fields });
    expect(res.status).toBe(status);
    expect(Object.keys(res.body)).toEqual(['message']);
    expect(res.body.message).toMatch(message);
    expect(h.driver.commands.length).toBe(before);
  });

  it('refuses an unknown _id with 404, malformed JSON with 400, and a non-JSON body with 415', async () => {
    const unknown = await h.call('PUT', '/light/state', { _id: 'nope', on: true, bri: 1 });
    expect(unknown).toMatchObject({
      status: 404,
      body: { message: expect.stringMatching(/no light with _id nope/) },
    });
    const malformed = await h.call('PUT', '/light/state', '{"_id": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: expect.any(String) });
    const form = await request(`${h.api}/light/state`, 'PUT', undefined, {});
    expect(form.status).toBe(400);
    const text = await fetch(`${h.api}/light/state`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toEqual({ message: 'Content-Type must be application/json' });
  });
});

describe('request limits and media types', () => {
  it('accepts application/json with a charset and refuses an oversized body with 413 {message}', async () => {
    const ok = await fetch(`${h.api}/light/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ _id: desk._id, on: true, bri: 5 }),
    });
    expect(ok.status).toBe(200);
    const before = h.driver.commands.length;
    const big = await h.call(
      'PUT',
      '/light/state',
      JSON.stringify({ _id: desk._id, pad: 'a'.repeat(3_000_000) }),
    );
    expect(big).toMatchObject({ status: 413, body: { message: expect.any(String) } });
    expect(h.driver.commands.length).toBe(before);
  });
});

describe('scenes', () => {
  it('lists scenes and applies one: every entry reaches the driver', async () => {
    const scene = (
      await h.call('POST', '/scene', {
        name: 'Evening',
        state: [
          { _id: desk._id, on: true, bri: 60 },
          { _id: hall._id, on: false, bri: 0 },
        ],
      })
    ).body;
    const list = await request(`${h.t.url}/site/${h.sitekey}/scene`, 'GET');
    expect(list.body).toEqual([{ _id: scene._id, siteid: h.siteid, name: 'Evening', state: scene.state }]);
    const res = await request(`${h.t.url}/site/${h.sitekey}/scene/apply`, 'PUT', { _id: scene._id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: scene._id, failed: [] });
    const last = h.driver.commands.slice(-2).map((c) => [c.protocolid, c.level]);
    expect(last).toEqual([
      ['d1', { on: true, bri: 60 }],
      ['h1', { on: false, bri: 0 }],
    ]);
    expect((await h.call('PUT', '/scene/apply', { _id: 'missing' })).status).toBe(404);
  });
});

describe('site keys', () => {
  it('answers unknown and wrong keys identically with 404', async () => {
    const wrong = await request(`${h.t.url}/api/site/${h.sitekey.slice(0, -2)}xx/light`, 'GET');
    const unknown = await request(`${h.t.url}/api/site/nosuchkey/light`, 'GET');
    expect(wrong.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(wrong.body).toEqual(unknown.body);
  });
});
