/** Colour temperature, colour and transitions on the site API (README "Colour"), over a real hub. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUE_GAMUT_B, inGamut, type LightLevel } from '../../drivers/lighting/index.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
let desk: Json;
let ambiance: Json;
let colour: Json;

const get = async (id: string) => (await h.call('GET', '/light')).body.find((l: Json) => l._id === id);
const lastCommand = () => h.driver.commands.at(-1)?.level as Json;

beforeAll(async () => {
  h = await startLighting();
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'D' }))
    .body;
  ambiance = (
    await h.call('POST', '/light', {
      name: 'Ambiance',
      type: 'dimmable',
      vendor: 'test',
      testid: 'A',
      capabilities: { ct: { min: 153, max: 454 } },
    })
  ).body;
  colour = (
    await h.call('POST', '/light', {
      name: 'Colour',
      type: 'dimmable',
      vendor: 'test',
      testid: 'C',
      capabilities: { ct: { min: 153, max: 500 }, xy: { gamut: HUE_GAMUT_B } },
    })
  ).body;
});
afterAll(() => h.t.stop());

describe('a light without colour keeps the spec shape', () => {
  it('GET /light of a dimmable-only light is byte-identical to the seed shape', async () => {
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 128 });
    await expect.poll(async () => (await get(desk._id)).bri).toBe(128);
    const res = await fetch(`${h.api}/light`);
    const text = await res.text();
    const own = JSON.stringify(JSON.parse(text).find((l: Json) => l._id === desk._id));
    expect(own).toBe(
      `{"_id":"${desk._id}","siteid":"${h.siteid}","name":"Desk","type":"dimmable","vendor":"test","subdef":"","testid":"D","on":true,"bri":128,"new":false}`,
    );
    // and the raw text holds exactly that object (no re-serialisation hides a field order change)
    expect(text).toContain(own);
  });

  it('PUT /light/state answers the seed shape and sends the driver on/bri only', async () => {
    const res = await fetch(`${h.api}/light/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ _id: desk._id, on: true, bri: 64 }),
    });
    expect(await res.text()).toMatch(
      new RegExp(`^\\{"_id":"${desk._id}","on":true,"bri":64,"confirmed":(true|false)\\}$`),
    );
    expect(lastCommand()).toEqual({ on: true, bri: 64 });
  });

  it('refuses colour on a light without it, naming the field', async () => {
    const cases: Array<[Json, string]> = [
      [{ ct: 300 }, 'ct: light'],
      [{ kelvin: 2700 }, 'kelvin: light'],
      [{ xy: [0.3, 0.3] }, 'xy: light'],
      [{ hex: '#ff0000' }, 'hex: light'],
    ];
    for (const [extra, message] of cases) {
      const res = await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 10, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
    }
    const xyOnAmbiance = await h.call('PUT', '/light/state', {
      _id: ambiance._id,
      on: true,
      bri: 10,
      xy: [0.3, 0.3],
    });
    expect(xyOnAmbiance.body.message).toBe(`xy: light ${ambiance._id} has no colour`);
  });
});

describe('colour temperature', () => {
  it('shows capabilities and the confirmed ct and colour mode', async () => {
    const res = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 200, ct: 366 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ on: true, bri: 200, ct: 366, colormode: 'ct' });
    expect(lastCommand()).toEqual({ on: true, bri: 200, ct: 366, colormode: 'ct' });
    await expect.poll(async () => (await get(ambiance._id)).ct).toBe(366);
    const light = await get(ambiance._id);
    expect(light.capabilities).toEqual({ ct: { min: 153, max: 454 } });
    expect(light.colormode).toBe('ct');
    expect(light.xy).toBeUndefined();
  });

  it('converts Kelvin once and clips it to the light (2000 K on a 454-mirek light is 454)', async () => {
    const res = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 200, kelvin: 2000 });
    expect(res.body.ct).toBe(454);
    const cool = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 200, kelvin: 6500 });
    expect(cool.body.ct).toBe(154);
  });

  it('400 for out-of-range mirek, and for Kelvin and mirek together', async () => {
    const low = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 1, ct: 152 });
    expect(low.status).toBe(400);
    expect(low.body.message).toBe('ct must be an integer from 153 to 454 (mirek)');
    const high = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 1, ct: 455 });
    expect(high.body.message).toBe('ct must be an integer from 153 to 454 (mirek)');
    const both = await h.call('PUT', '/light/state', {
      _id: ambiance._id,
      on: true,
      bri: 1,
      ct: 300,
      kelvin: 3000,
    });
    expect(both.status).toBe(400);
    expect(both.body.message).toBe('ct and kelvin: give one of them, not both');
    const k = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 1, kelvin: 'warm' });
    expect(k.body.message).toBe('kelvin must be a number from 1000 to 40000');
  });

  it('a brightness command keeps the colour temperature', async () => {
    await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 200, ct: 250 });
    const res = await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 20 });
    expect(res.body).toMatchObject({ bri: 20, ct: 250, colormode: 'ct' });
    expect(lastCommand()).toEqual({ on: true, bri: 20 });
    await expect.poll(async () => (await get(ambiance._id)).bri).toBe(20);
    expect((await get(ambiance._id)).ct).toBe(250);
  });
});

describe('colour', () => {
  it('takes xy, clips it to the gamut, and reports colour mode xy', async () => {
    const res = await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 255, xy: [0.17, 0.7] });
    expect(res.status).toBe(200);
    expect(res.body.colormode).toBe('xy');
    expect(res.body.xy).not.toEqual([0.17, 0.7]);
    expect(inGamut(res.body.xy, HUE_GAMUT_B)).toBe(true);
    await expect.poll(async () => (await get(colour._id)).colormode).toBe('xy');
  });

  it('takes #rrggbb and hue/saturation, converted to xy', async () => {
    const red = await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 255, hex: '#FF0000' });
    expect(red.body.xy[0]).toBeGreaterThan(0.6);
    const blue = await h.call('PUT', '/light/state', {
      _id: colour._id,
      on: true,
      bri: 255,
      hue: 240,
      sat: 100,
    });
    expect(blue.body.xy[1]).toBeLessThan(0.1);
    expect(lastCommand()).toMatchObject({ colormode: 'xy', xy: blue.body.xy });
  });

  it('a colour temperature on a colour light also gives its xy on the black-body locus', async () => {
    const res = await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 255, ct: 500 });
    expect(res.body).toMatchObject({ ct: 500, colormode: 'ct' });
    expect(res.body.xy[0]).toBeGreaterThan(0.5);
  });

  it('400 names the field for xy outside [0, 1], a bad hex, half a hue/sat, a mixed request', async () => {
    const cases: Array<[Json, string]> = [
      [{ xy: [1.2, 0.3] }, 'xy must be [x, y] with numbers from 0 to 1'],
      [{ xy: [-0.1, 0.3] }, 'xy must be [x, y] with numbers from 0 to 1'],
      [{ xy: [0.3] }, 'xy must be [x, y] with numbers from 0 to 1'],
      [{ hex: 'red' }, 'hex must be #rrggbb'],
      [{ hue: 120 }, 'hue and sat must be given together'],
      [{ hue: 400, sat: 10 }, 'hue must be a number from 0 to 360 (degrees)'],
      [{ ct: 300, xy: [0.3, 0.3] }, 'ct and xy: give a colour temperature or a colour, not both'],
      [{ xy: [0.3, 0.3], hex: '#ffffff' }, 'xy and hex: give one form of colour'],
      [{ transition: -1 }, 'transition must be a number of seconds from 0 to 3600'],
    ];
    for (const [extra, message] of cases) {
      const res = await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 10, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.message).toBe(message);
    }
  });

  it('passes a transition to the driver, in seconds', async () => {
    await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 100, transition: 1.5 });
    expect(lastCommand()).toEqual({ on: true, bri: 100, transition: 1.5 });
  });

  it('capabilities are checked on POST /light and removed with null', async () => {
    const bad = await h.call('POST', '/light', {
      name: 'X',
      type: 'dimmable',
      vendor: 'test',
      testid: 'X',
      capabilities: { ct: { min: 500, max: 153 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('capabilities.ct');
    const gamut = await h.call('POST', '/light', {
      name: 'X',
      type: 'dimmable',
      vendor: 'test',
      testid: 'X',
      capabilities: { xy: { gamut: [[0.7, 0.3]] } },
    });
    expect(gamut.body.message).toContain('capabilities.xy.gamut');
    const made = await h.call('POST', '/light', {
      name: 'X',
      type: 'dimmable',
      vendor: 'test',
      testid: 'X',
      capabilities: { xy: {} },
    });
    expect(made.body.capabilities.xy.gamut).toHaveLength(3);
    const plain = await h.call('PUT', '/light', { _id: made.body._id, capabilities: null });
    expect(plain.body.capabilities).toBeUndefined();
    await h.call('DELETE', `/light/${made.body._id}`);
  });
});

describe('scenes, groups, WebSocket and bus', () => {
  it('a scene stores mirek/xy clipped to each light and applies them', async () => {
    const scene = await h.call('POST', '/scene', {
      name: 'Evening',
      state: [
        { _id: ambiance._id, on: true, bri: 100, kelvin: 2700 },
        { _id: colour._id, on: true, bri: 150, hex: '#ff8000' },
        { _id: desk._id, on: true, bri: 50 },
      ],
    });
    expect(scene.status).toBe(201);
    expect(scene.body.state[0]).toEqual({ _id: ambiance._id, on: true, bri: 100, ct: 370, colormode: 'ct' });
    expect(scene.body.state[1]).toMatchObject({ _id: colour._id, colormode: 'xy' });
    expect(scene.body.state[2]).toEqual({ _id: desk._id, on: true, bri: 50 });
    const bad = await h.call('POST', '/scene', {
      name: 'Bad',
      state: [{ _id: desk._id, on: true, bri: 50, ct: 300 }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(`state[0].ct: light ${desk._id} has no colour temperature`);
    await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 10, ct: 153 });
    const applied = await h.call('PUT', '/scene/apply', { _id: scene.body._id });
    expect(applied.body.state).toContainEqual({
      _id: ambiance._id,
      on: true,
      bri: 100,
      ct: 370,
      colormode: 'ct',
    });
    await expect.poll(async () => (await get(ambiance._id)).ct).toBe(370);
  });

  it('group toggle keeps the colours', async () => {
    await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 90, hex: '#00ff00' });
    const green = (await get(colour._id)).xy;
    const group = (await h.call('POST', '/light/group', { name: 'All', lights: [ambiance._id, colour._id] }))
      .body;
    await h.call('PUT', '/light/group/toggle', { _id: group._id });
    await expect.poll(async () => (await get(colour._id)).on).toBe(false);
    const back = await h.call('PUT', '/light/group/toggle', { _id: group._id });
    expect(back.body.state).toContainEqual(
      expect.objectContaining({ _id: colour._id, on: true, bri: 90, xy: green }),
    );
    await expect.poll(async () => (await get(colour._id)).on).toBe(true);
    expect((await get(colour._id)).xy).toEqual(green);
    expect((await get(ambiance._id)).ct).toBe(370);
  });

  it('setLightState pushes and the bus event carry the colour; the WebSocket set takes it too', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    const events: Json[] = [];
    const off = h.t.hub.bus.on('colour-test', 'lighting.light.state', (e) => {
      events.push(e);
    });
    ws.send('set', { _id: ambiance._id, on: true, bri: 77, ct: 400 }, 7);
    const pushed = await ws.next('setLightState');
    expect(pushed.data).toMatchObject({ _id: ambiance._id, bri: 77, ct: 400, colormode: 'ct' });
    await expect.poll(() => events.length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ lightId: ambiance._id, bri: 77, ct: 400, colormode: 'ct' });
    ws.send('set', { _id: desk._id, on: true, bri: 1, xy: [0.3, 0.3] }, 8);
    const err = await ws.next('error');
    expect(err.data.message).toBe(`xy: light ${desk._id} has no colour`);
    off?.();
    await ws.close();
  });

  it('the setLightState export takes the same colour inputs', async () => {
    const answer = await h.lighting.setLightState(h.siteid, colour._id, { on: true, bri: 40, kelvin: 4000 });
    expect(answer).toMatchObject({ ct: 250, colormode: 'ct' });
    await expect(
      h.lighting.setLightState(h.siteid, desk._id, { on: true, bri: 40, ct: 300 }),
    ).rejects.toMatchObject({
      status: 400,
    });
  });
});

describe('sensor actions', () => {
  it('a light action bound to a sensor event sets colour like PUT /light/state', async () => {
    const sensor = (
      await h.call('POST', '/sensor', { name: 'Wall', vendor: 'test', testid: 'S1', type: 'switch' })
    ).body;
    const bind = (action: Json, event = '1') =>
      h.call('POST', '/sensor/action', { _id: sensor._id, event, action });
    const warm = await bind({ type: 'light', _id: ambiance._id, on: true, bri: 120, kelvin: 2000 });
    expect(warm.status).toBe(201);
    // stored as the light will be set to: 2000 K clipped to the light's warmest (454 mirek)
    expect(warm.body.actions['1'][0]).toEqual({
      type: 'light',
      _id: ambiance._id,
      on: true,
      bri: 120,
      ct: 454,
      colormode: 'ct',
      actionid: expect.any(String),
    });
    const red = await bind(
      { type: 'light', _id: colour._id, on: true, bri: 200, hex: '#ff0000', transition: 2 },
      '2',
    );
    expect(red.status).toBe(201);
    const stored = red.body.actions['2'][0];
    expect(stored).toMatchObject({ colormode: 'xy', transition: 2 });
    expect(inGamut(stored.xy, HUE_GAMUT_B)).toBe(true);
    const plain = await bind({ type: 'light', _id: desk._id, on: true, bri: 30 }, '3');
    expect(plain.body.actions['3'][0]).toEqual({
      type: 'light',
      _id: desk._id,
      on: true,
      bri: 30,
      actionid: expect.any(String),
    });

    await h.call('PUT', '/light/state', { _id: ambiance._id, on: true, bri: 10, ct: 153 });
    expect((await h.call('POST', '/sensor/event', { _id: sensor._id, event: '1' })).status).toBe(202);
    expect(lastCommand()).toEqual({ on: true, bri: 120, ct: 454, colormode: 'ct' });
    await expect.poll(async () => (await get(ambiance._id)).ct).toBe(454);

    await h.call('POST', '/sensor/event', { _id: sensor._id, event: '2' });
    expect(lastCommand()).toEqual({ on: true, bri: 200, xy: stored.xy, colormode: 'xy', transition: 2 });
    await expect.poll(async () => (await get(colour._id)).xy).toEqual(stored.xy);

    // a plain action sends on/bri only, and a colour light keeps its colour under a level-only action
    await h.call('POST', '/sensor/event', { _id: sensor._id, event: '3' });
    expect(lastCommand()).toEqual({ on: true, bri: 30 });
  });

  it('400 names the action field for bad colour in an action, and nothing is stored', async () => {
    const sensor = (
      await h.call('POST', '/sensor', { name: 'Wall 2', vendor: 'test', testid: 'S2', type: 'switch' })
    ).body;
    const cases: Array<[Json, string]> = [
      [{ _id: desk._id, ct: 300 }, `action.ct: light ${desk._id} has no colour temperature`],
      [{ _id: desk._id, hex: '#ff0000' }, `action.hex: light ${desk._id} has no colour`],
      [{ _id: ambiance._id, ct: 600 }, 'action.ct must be an integer from 153 to 454 (mirek)'],
      [{ _id: ambiance._id, ct: 300, kelvin: 3000 }, 'action.ct and kelvin: give one of them, not both'],
      [{ _id: colour._id, xy: [1.2, 0.3] }, 'action.xy must be [x, y] with numbers from 0 to 1'],
      [{ _id: colour._id, hue: 120 }, 'action.hue and sat must be given together'],
      [{ _id: colour._id, hex: 'red' }, 'action.hex must be #rrggbb'],
      [{ _id: colour._id, transition: -1 }, 'action.transition must be a number of seconds from 0 to 3600'],
      [{ _id: colour._id, colour: 'red' }, 'unknown field action.colour'],
    ];
    for (const [extra, message] of cases) {
      const res = await h.call('POST', '/sensor/action', {
        _id: sensor._id,
        event: '1',
        action: { type: 'light', on: true, bri: 50, ...extra },
      });
      expect(res.status, message).toBe(400);
      expect(res.body.message).toBe(message);
    }
    const after = (await h.call('GET', '/sensor')).body.find((s: Json) => s._id === sensor._id);
    expect(after.actions).toEqual({});
  });
});

describe('xy keeps the documented 4 decimals, given or reported', () => {
  it('a given xy with 6 decimals is answered, stored, pushed and sent on the bus with 4', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    const events: Json[] = [];
    const off = h.t.hub.bus.on('xy-decimals', 'lighting.light.state', (e) => {
      events.push(e);
    });
    const given: [number, number] = [0.412345, 0.312345];
    expect(inGamut(given, HUE_GAMUT_B)).toBe(true);
    const res = await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 101, xy: given });
    expect(res.status).toBe(200);
    expect(res.body.xy).toEqual([0.4123, 0.3123]);
    const pushed = await ws.next('setLightState', (d) => d._id === colour._id && d.bri === 101);
    expect(pushed.data.xy).toEqual([0.4123, 0.3123]);
    expect((await get(colour._id)).xy).toEqual([0.4123, 0.3123]);
    await expect
      .poll(() => events.find((e) => e.lightId === colour._id && e.bri === 101)?.xy)
      .toEqual([0.4123, 0.3123]);
    // a scene entry too
    const scene = await h.call('POST', '/scene', {
      name: 'Decimals',
      state: [{ _id: colour._id, on: true, bri: 50, xy: given }],
    });
    expect(scene.body.state[0].xy).toEqual([0.4123, 0.3123]);
    off?.();
    await ws.close();
  });

  it('a reported xy with 6 decimals is answered and pushed with 4', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    h.driver.external('C', { on: true, bri: 102, xy: [0.398765, 0.387654], colormode: 'xy' } as LightLevel);
    const pushed = await ws.next('setLightState', (d) => d._id === colour._id && d.bri === 102);
    expect(pushed.data.xy).toEqual([0.3988, 0.3877]);
    expect((await get(colour._id)).xy).toEqual([0.3988, 0.3877]);
    await ws.close();
  });
});
