/**
 * The lighting spec types a light's `subdef` as a string: strictly typed clients failed on the `null` of a
 * light without one. Every answer, live event and export carries a string (`""` when there is none), and
 * `""` sent back in a whole light object means none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
beforeAll(async () => {
  h = await startLighting();
});
afterAll(() => h.t.stop());

describe('subdef is null on lights without one (regression)', () => {
  it('is "" in every answer, live event and export of a light without one', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    const created = await h.call('POST', '/light', {
      name: 'Desk',
      type: 'dimmable',
      vendor: 'test',
      testid: 'd1',
    });
    expect(created.status).toBe(201);
    expect(created.body.subdef).toBe('');
    const id = created.body._id;
    expect((await h.call('GET', '/light')).body.find((l: Json) => l._id === id).subdef).toBe('');
    expect((await h.call('PUT', '/light', { _id: id, name: 'Desk 2' })).body.subdef).toBe('');
    await h.call('PUT', '/light/state', { _id: id, on: true, bri: 40 });
    expect((await ws.next('setLightState', (d) => d.bri === 40)).data.subdef).toBe('');
    const root = (await h.call('GET', '')).body;
    expect(root.lights.find((l: Json) => l._id === id).subdef).toBe('');
    expect(h.lighting.lights(h.siteid).find((l) => l._id === id)?.subdef).toBe('');
    const hello = await (await SiteSocket.open(`${h.api}/ws`)).next('hello');
    expect(hello.data.lights.find((l: Json) => l._id === id).subdef).toBe('');
    await ws.close();
  });

  it('takes "" back as none, and keeps a sender id as the string it was given', async () => {
    const light = (await h.call('GET', '/light')).body[0];
    const resent = await h.call('PUT', '/light', { ...light, name: 'Resent' });
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ name: 'Resent', subdef: '' });
    const radio = await h.call('POST', '/light', {
      name: 'Radio',
      type: 'binary',
      vendor: 'test',
      testid: 'r1',
      subdef: 'FF:80:00:01',
    });
    expect(radio.body.subdef).toBe('ff:80:00:01');
    const cleared = await h.call('PUT', '/light', { _id: radio.body._id, subdef: '' });
    expect(cleared.body.subdef).toBe('');
    expect((await h.call('PUT', '/light', { _id: radio.body._id, subdef: 'nope' })).status).toBe(400);
  });
});
