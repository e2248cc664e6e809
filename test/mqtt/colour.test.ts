/**
 * Colour over the real broker: a zigbee2mqtt colour bulb (simulator) is discovered with its capabilities,
 * takes colour temperature and colour the way zigbee2mqtt does, its own colour reports reach the site API,
 * and Hearth's topics and Home Assistant discovery carry the colour.
 */
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { tasmota } from '../../drivers/mqtt/profiles/tasmota.ts';
import { startHaJsonBulb } from '../../scripts/simulators/ha-json-bulb.ts';
import { startShellyBulb } from '../../scripts/simulators/shelly-bulb.ts';
import { startShellyRgbw2 } from '../../scripts/simulators/shelly-rgbw2.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

async function colourBulb(config: Record<string, unknown> = {}) {
  const h: MqttHub = await startMqttHub({ mqtt: { allowAnonymous: true }, ...config });
  stops.push(() => h.stop());
  const z2m = await startZigbee2mqtt({
    url: h.t.mqttUrl,
    devices: [
      { name: 'lounge', type: 'colour' },
      { name: 'hall', type: 'bulb' },
    ],
  });
  stops.push(() => z2m.stop());
  const find = async (id: string) =>
    ((await h.site('GET', '/light')).body as Json[]).find((l) => l.mqttid === id);
  const light = await eventually(() => find('zigbee2mqtt:lounge'), 'the discovered colour light');
  const plain = await eventually(() => find('zigbee2mqtt:hall'), 'the discovered plain light');
  return { h, z2m, light, plain, find };
}

describe('zigbee2mqtt colour bulbs', () => {
  it('are discovered with their mired range and colour from bridge/devices exposes; plain bulbs keep the seed shape', async () => {
    const { light, plain } = await colourBulb();
    expect(light.capabilities.ct).toEqual({ min: 153, max: 500 });
    expect(light.capabilities.xy.gamut).toHaveLength(3);
    expect(plain.capabilities).toBeUndefined();
    expect(Object.keys(plain)).toEqual([
      '_id',
      'siteid',
      'name',
      'type',
      'vendor',
      'subdef',
      'mqttid',
      'on',
      'bri',
      'new',
    ]);
  });

  it('take color_temp and color {x, y} on …/set, and their reports update the site API', async () => {
    const { h, z2m, light, find } = await colourBulb();
    const warm = await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 200, kelvin: 2700 });
    expect(warm.status).toBe(200);
    await eventually(() => z2m.bulb('lounge').color_temp === 370, 'the bulb at 370 mireds');
    expect(z2m.bulb('lounge').color_mode).toBe('color_temp');
    // The bulb's reports can come in more than one message (state, then colour): wait for all of it.
    await eventually(async () => {
      const l = await find('zigbee2mqtt:lounge');
      return l?.colormode === 'ct' && l.on === true;
    }, 'ct confirmed, on');
    expect(await find('zigbee2mqtt:lounge')).toMatchObject({ on: true, ct: 370, colormode: 'ct' });
    const red = await h.site('PUT', '/light/state', {
      _id: light._id,
      on: true,
      bri: 200,
      hex: '#ff0000',
      transition: 2,
    });
    expect(red.status).toBe(200);
    await eventually(() => z2m.bulb('lounge').color_mode === 'xy', 'the bulb in xy');
    expect(z2m.bulb('lounge').color?.x).toBeCloseTo(red.body.xy[0], 4);
    const sent = z2m.received.map((m: Json) => m.payload).filter((p: string) => p.includes('"color"'));
    expect(JSON.parse(sent.at(-1))).toMatchObject({
      state: 'ON',
      color: { x: red.body.xy[0] },
      transition: 2,
    });
    await eventually(async () => (await find('zigbee2mqtt:lounge'))?.colormode === 'xy', 'xy confirmed');
  });

  it("a device's own colour change (another app, a remote) reaches the site API", async () => {
    const { h, light, find } = await colourBulb();
    const other = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'remote',
      password: await h.credential('remote', ['zigbee2mqtt/#']),
    });
    stops.push(() => other.endAsync());
    await other.publishAsync(
      'zigbee2mqtt/lounge',
      JSON.stringify({
        state: 'ON',
        brightness: 254,
        color_mode: 'hs',
        color: { hue: 240, saturation: 100 },
      }),
    );
    const seen = await eventually(async () => {
      const l = await find('zigbee2mqtt:lounge');
      return l?.colormode === 'xy' ? l : undefined;
    }, 'the reported colour');
    expect(seen._id).toBe(light._id);
    expect(seen.xy[1]).toBeLessThan(0.1);
  });
});

describe('Home Assistant JSON colour lights', () => {
  it('are discovered from supported_color_modes and take colour in the form they declared (color_temp, hs)', async () => {
    const h: MqttHub = await startMqttHub({ mqtt: { allowAnonymous: true } });
    stops.push(() => h.stop());
    const bulb = await startHaJsonBulb({ url: h.t.mqttUrl, node: 'esp9', colourModes: ['color_temp', 'hs'] });
    stops.push(() => bulb.stop());
    const find = async () =>
      ((await h.site('GET', '/light')).body as Json[]).find((l) => l.mqttid === 'ha:esp9-light');
    const light = await eventually(find, 'the discovered HA light');
    expect(light.capabilities.ct).toEqual({ min: 153, max: 454 });
    expect(light.capabilities.xy.gamut).toHaveLength(3);
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, kelvin: 4000 });
    await eventually(() => bulb.state.color_temp === 250, 'color_temp 250 on the bulb');
    await eventually(async () => (await find())?.ct === 250, 'ct reported back');
    expect(await find()).toMatchObject({ colormode: 'ct', ct: 250 });
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hue: 120, sat: 100 });
    await eventually(() => bulb.state.color_mode === 'hs', 'the bulb in hs');
    expect(bulb.state.color?.h).toBeGreaterThan(100);
    expect(bulb.state.color?.h).toBeLessThan(140);
    await eventually(async () => (await find())?.colormode === 'xy', 'colour reported back');
  });
});

describe('Home Assistant JSON white, rgbw and rgbww lights', () => {
  async function haBulb(node: string, colourModes: string[]) {
    const h: MqttHub = await startMqttHub({ mqtt: { allowAnonymous: true } });
    stops.push(() => h.stop());
    const bulb = await startHaJsonBulb({ url: h.t.mqttUrl, node, colourModes });
    stops.push(() => bulb.stop());
    const find = async () =>
      ((await h.site('GET', '/light')).body as Json[]).find((l) => l.mqttid === `ha:${node}-light`);
    const light = await eventually(find, 'the discovered HA light');
    const commands = () =>
      bulb.received.filter((m) => m.topic.endsWith('/set')).map((m) => JSON.parse(m.payload) as Json);
    return { h, bulb, find, light, commands };
  }

  it('white mode: white itself goes to the white LED as `white` (no brightness); colour goes as rgb', async () => {
    const { h, bulb, find, light, commands } = await haBulb('esp10', ['rgb', 'white']);
    expect(light.capabilities.xy.gamut).toHaveLength(3);
    expect(light.capabilities.ct).toBeUndefined();
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128, hex: '#ffffff' });
    await eventually(() => bulb.state.color_mode === 'white', 'the bulb in white mode');
    expect(commands().at(-1)).toEqual({ state: 'ON', white: 128 });
    await eventually(async () => (await find())?.bri === 128, 'the level reported back');
    expect(await find()).toMatchObject({ colormode: 'xy', xy: [0.3127, 0.329] });
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 200, hex: '#ff0000' });
    await eventually(() => bulb.state.color_mode === 'rgb', 'the bulb in rgb');
    expect(commands().at(-1)).toEqual({ state: 'ON', brightness: 200, color: { r: 255, g: 0, b: 0 } });
    await eventually(async () => ((await find())?.xy?.[0] ?? 0) > 0.6, 'red reported back');
  });

  it('rgbw: the grey share goes to the white channel, and w counts as white in reports', async () => {
    const { h, bulb, find, light, commands } = await haBulb('esp11', ['rgbw']);
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hex: '#ffffff' });
    await eventually(() => bulb.state.color?.w === 255, 'the white channel on the bulb');
    expect(commands().at(-1)).toMatchObject({ color: { r: 0, g: 0, b: 0, w: 255 } });
    await eventually(async () => (await find())?.colormode === 'xy', 'the colour reported back');
    const white = (await find()).xy as [number, number];
    expect(Math.abs(white[0] - 0.3127)).toBeLessThan(0.002);
    expect(Math.abs(white[1] - 0.329)).toBeLessThan(0.002);
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hex: '#0000ff' });
    await eventually(() => bulb.state.color?.b === 255, 'blue on the bulb');
    expect(commands().at(-1)).toMatchObject({ color: { r: 0, g: 0, b: 255, w: 0 } });
  });

  it('rgbww without color_temp: a colour temperature is a cold/warm mix over the range, read back as ct', async () => {
    const { h, bulb, find, light, commands } = await haBulb('esp12', ['rgbww']);
    expect(light.capabilities.ct).toEqual({ min: 153, max: 454 });
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, ct: 454 });
    await eventually(() => bulb.state.color?.w === 255, 'the warm white on the bulb');
    expect(commands().at(-1)).toMatchObject({ color: { r: 0, g: 0, b: 0, c: 0, w: 255 } });
    await eventually(async () => (await find())?.ct === 454, 'the warm end read back');
    expect(await find()).toMatchObject({ colormode: 'ct', ct: 454 });
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, ct: 303 });
    await eventually(() => bulb.state.color?.c === 255, 'the mix on the bulb');
    expect(commands().at(-1)).toMatchObject({ color: { r: 0, g: 0, b: 0, c: 255, w: 253 } });
    await eventually(async () => Math.abs(((await find())?.ct ?? 0) - 303) <= 1, 'the middle read back');
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hex: '#ff0000' });
    await eventually(() => bulb.state.color?.r === 255, 'red on the bulb');
    expect(commands().at(-1)).toMatchObject({ color: { r: 255, g: 0, b: 0, c: 0, w: 0 } });
    await eventually(async () => (await find())?.colormode === 'xy', 'colour read back');
  });
});

describe('Shelly Gen1 colour bulbs', () => {
  it('take mode white with temp and mode color with RGB and gain; their status updates the site API', async () => {
    const h: MqttHub = await startMqttHub();
    stops.push(() => h.stop());
    const bulb = await startShellyBulb({
      url: h.t.mqttUrl,
      id: 'shellybulb-C1',
      username: 'shellybulb',
      password: await h.credential('shellybulb', ['shellies/shellybulb-C1/#']),
    });
    stops.push(() => bulb.stop());
    const light = (
      await h.site('POST', '/light', {
        name: 'Bulb',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'shelly1:shellybulb-C1:color:0',
        capabilities: {
          ct: { min: 154, max: 333 },
          xy: {
            gamut: [
              [0.64, 0.33],
              [0.3, 0.6],
              [0.15, 0.06],
            ],
          },
        },
      })
    ).body;
    const find = async () =>
      ((await h.site('GET', '/light')).body as Json[]).find((l) => l._id === light._id);
    const warm = await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128, kelvin: 3000 });
    expect(warm.status).toBe(200);
    await eventually(() => bulb.status.mode === 'white' && bulb.status.ison, 'white mode');
    expect(bulb.status).toMatchObject({ temp: 3003, brightness: 50 });
    // 3003 K back from the bulb is 333 mirek (its start-up status said 4000 K)
    await eventually(async () => (await find())?.ct === 333, 'ct reported back');
    expect((await find()).colormode).toBe('ct');
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hex: '#0000ff' });
    await eventually(() => bulb.status.mode === 'color', 'colour mode');
    expect(bulb.status).toMatchObject({ red: 0, green: 0, blue: 255, gain: 100 });
    const seen = await eventually(async () => {
      const l = await find();
      return l?.colormode === 'xy' ? l : undefined;
    }, 'colour reported back');
    expect(seen.xy[1]).toBeLessThan(0.1);
    expect(seen.bri).toBe(255);
  });
});

describe('Shelly RGBW2', () => {
  const SRGB = [
    [0.64, 0.33],
    [0.3, 0.6],
    [0.15, 0.06],
  ];

  it('colour mode: white goes to the white channel, and a white-only status from the Shelly app reads as white (was: no colour)', async () => {
    const h: MqttHub = await startMqttHub();
    stops.push(() => h.stop());
    const strip = await startShellyRgbw2({
      url: h.t.mqttUrl,
      id: 'shellyrgbw2-C2',
      mode: 'color',
      username: 'rgbw2',
      password: await h.credential('rgbw2', ['shellies/shellyrgbw2-C2/#']),
    });
    stops.push(() => strip.stop());
    const light = (
      await h.site('POST', '/light', {
        name: 'Strip',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'shelly1:shellyrgbw2-C2:color:0',
        capabilities: { xy: { gamut: SRGB } },
      })
    ).body;
    const find = async () =>
      ((await h.site('GET', '/light')).body as Json[]).find((l) => l._id === light._id);
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hex: '#ff0000' });
    await eventually(() => strip.colour.ison && strip.colour.gain === 100, 'the strip on');
    expect(strip.colour).toMatchObject({ red: 255, green: 0, blue: 0, white: 0 });
    await eventually(async () => ((await find())?.xy?.[0] ?? 0) > 0.6, 'red reported back');
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128, hex: '#ffffff' });
    await eventually(() => strip.colour.white === 255, 'the white channel');
    expect(strip.colour).toMatchObject({ red: 0, green: 0, blue: 0, gain: 50 });
    const near = (xy: number[] | undefined) =>
      !!xy && Math.abs(xy[0]! - 0.3127) < 0.002 && Math.abs(xy[1]! - 0.329) < 0.002;
    await eventually(async () => near((await find())?.xy), 'white reported back');
    // the Shelly app: red, then the white LED alone at 80 %
    await strip.appSet({ red: 255, green: 0, blue: 0, white: 0 });
    await eventually(async () => ((await find())?.xy?.[0] ?? 0) > 0.6, 'red from the app');
    await strip.appSet({ red: 0, green: 0, blue: 0, white: 200, gain: 80 });
    await eventually(async () => near((await find())?.xy), 'white from the app');
    expect(await find()).toMatchObject({ on: true, bri: 204, colormode: 'xy' });
  });

  it('white mode: each of the four channels is a dimmer of its own', async () => {
    const h: MqttHub = await startMqttHub();
    stops.push(() => h.stop());
    const strip = await startShellyRgbw2({
      url: h.t.mqttUrl,
      id: 'shellyrgbw2-W4',
      mode: 'white',
      username: 'rgbw2w',
      password: await h.credential('rgbw2w', ['shellies/shellyrgbw2-W4/#']),
    });
    stops.push(() => strip.stop());
    const add = async (n: number) =>
      (
        await h.site('POST', '/light', {
          name: `White ${n}`,
          type: 'dimmable',
          vendor: 'mqtt',
          mqttid: `shelly1:shellyrgbw2-W4:white:${n}`,
        })
      ).body;
    const w0 = await add(0);
    const w2 = await add(2);
    await h.site('PUT', '/light/state', { _id: w2._id, on: true, bri: 64 });
    await eventually(() => strip.whites[2]!.ison, 'channel 2 on');
    expect(strip.whites[2]!.brightness).toBe(25);
    expect(strip.whites[0]!.ison).toBe(false);
    const find = async (id: string) =>
      ((await h.site('GET', '/light')).body as Json[]).find((l) => l._id === id);
    await eventually(async () => (await find(w2._id))?.on === true, 'channel 2 reported on');
    expect(await find(w2._id)).toMatchObject({ bri: 64 });
    expect((await find(w2._id)).colormode).toBeUndefined();
    await h.site('PUT', '/light/state', { _id: w0._id, on: true, bri: 255 });
    await eventually(() => strip.whites[0]!.brightness === 100 && strip.whites[0]!.ison, 'channel 0 full');
    await h.site('PUT', '/light/state', { _id: w2._id, on: false, bri: 0 });
    await eventually(() => !strip.whites[2]!.ison, 'channel 2 off');
    expect(strip.whites[0]!.ison).toBe(true);
  });
});

describe('Tasmota RGBCW bulbs', () => {
  it('are discovered from lt_st 5 and take CT, HSBColor; RESULT reports CT, Color and HSBColor back', async () => {
    const h: MqttHub = await startMqttHub({ mqtt: { allowAnonymous: true } });
    stops.push(() => h.stop());
    const bulb = await startTasmotaBulb({ url: h.t.mqttUrl, topic: 'strip', discovery: true, colour: true });
    stops.push(() => bulb.stop());
    const find = async () =>
      ((await h.site('GET', '/light')).body as Json[]).find((l) => l.mqttid === 'tasmota:strip');
    const light = await eventually(find, 'the discovered Tasmota light');
    expect(light.capabilities.ct).toEqual({ min: 153, max: 500 });
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128, kelvin: 2700 });
    await eventually(() => bulb.colour.ct === 370 && bulb.dimmer === 50, 'CT 370 at 50 %');
    await eventually(async () => (await find())?.colormode === 'ct', 'ct reported back');
    expect((await find()).ct).toBe(370);
    await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255, hex: '#00ff00' });
    await eventually(() => bulb.colour.mode === 'rgb', 'the bulb in colour');
    expect(Math.abs(bulb.colour.hue - 120)).toBeLessThanOrEqual(3);
    expect(bulb.dimmer).toBe(100);
    const seen = await eventually(async () => {
      const l = await find();
      return l?.colormode === 'xy' ? l : undefined;
    }, 'colour reported back');
    expect(seen.xy[1]).toBeGreaterThan(0.5);
  });
});

describe('Tasmota white channels in reports', () => {
  const rgbw = {
    protocolid: 'tasmota:rgbw',
    profile: 'tasmota' as const,
    kind: 'dimmable' as const,
    address: 'rgbw',
  };
  const read = (payload: Json) =>
    tasmota.parse(rgbw, 'stat/rgbw/RESULT', Buffer.from(JSON.stringify(payload)));

  it('an RGBW light lit by its white LED alone (no CT) reads as white (was: no colour)', () => {
    expect(read({ POWER: 'ON', Dimmer: 60, Color: '000000FF' })).toEqual([
      { type: 'state', on: true, bri: 153, xy: [0.3127, 0.329], colormode: 'xy' },
    ]);
    expect(read({ POWER: 'ON', Color: '0,0,0,255' })[0]).toMatchObject({
      xy: [0.3127, 0.329],
      colormode: 'xy',
    });
    // an RGBCW light in white reports CT: colour temperature wins
    expect(read({ POWER: 'ON', CT: 327, Color: '000000A65A' })[0]).toMatchObject({
      ct: 327,
      colormode: 'ct',
    });
    // dark channels say nothing about colour
    expect(read({ POWER: 'OFF', Color: '00000000' })).toEqual([{ type: 'state', on: false }]);
  });
});

describe("Hearth's topics and Home Assistant discovery", () => {
  it('state carries HA JSON colour, set takes color_temp, discovery declares the colour modes', async () => {
    const { h, z2m, light, plain } = await colourBulb({
      plugins: { 'mqtt-devices': { publishHomeAssistant: true } },
    });
    // Node-RED style: the site key reaches hearth/<site>/…; Home Assistant has its own credential
    const client = await mqtt.connectAsync(h.t.mqttUrl, { username: 'node-red', password: h.sitekey });
    stops.push(() => client.endAsync());
    const ha = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'ha',
      password: await h.credential('ha', ['homeassistant/#']),
    });
    stops.push(() => ha.endAsync());
    const seen: Array<{ topic: string; body: Json }> = [];
    client.on('message', (topic, p) => {
      if (p.length) seen.push({ topic, body: JSON.parse(p.toString()) });
    });
    ha.on('message', (topic, p) => {
      if (p.length) seen.push({ topic, body: JSON.parse(p.toString()) });
    });
    await client.subscribeAsync(`hearth/${h.siteid}/light/+/state`);
    await ha.subscribeAsync('homeassistant/light/#');
    const config = (id: string) =>
      seen.find((m) => m.topic === `homeassistant/light/hearth_${h.siteid}/${id}/config`)?.body;
    const c = await eventually(() => config(light._id), 'the HA config of the colour light');
    expect(c.supported_color_modes).toEqual(['color_temp', 'xy']);
    expect(c).toMatchObject({ min_mireds: 153, max_mireds: 500 });
    const p = await eventually(() => config(plain._id), 'the HA config of the plain light');
    expect(p.supported_color_modes).toEqual(['brightness']);
    expect(p.min_mireds).toBeUndefined();

    // Home Assistant turns the light on at a colour temperature: no brightness, state ON
    await client.publishAsync(
      `hearth/${h.siteid}/light/${light._id}/set`,
      JSON.stringify({ state: 'ON', color_temp: 250 }),
    );
    await eventually(() => z2m.bulb('lounge').color_temp === 250, 'the bulb at 250 mireds');
    const state = await eventually(
      () =>
        seen.find(
          (m) => m.topic === `hearth/${h.siteid}/light/${light._id}/state` && m.body.color_temp === 250,
        ),
      'the colour state on the hearth topic',
    );
    expect(state.body).toMatchObject({ state: 'ON', color_mode: 'color_temp', ct: 250, colormode: 'ct' });
    expect(state.body.color).toEqual({ x: state.body.xy[0], y: state.body.xy[1] });

    await client.publishAsync(
      `hearth/${h.siteid}/light/${light._id}/set`,
      JSON.stringify({ state: 'ON', color: { x: 0.2, y: 0.6 } }),
    );
    await eventually(() => z2m.bulb('lounge').color_mode === 'xy', 'the bulb in xy');
    await eventually(
      () => seen.find((m) => m.topic.includes(light._id) && m.body.color_mode === 'xy'),
      'xy on the hearth topic',
    );
    // the plain light's state stays the seed payload
    await client.publishAsync(
      `hearth/${h.siteid}/light/${plain._id}/set`,
      JSON.stringify({ on: true, bri: 51 }),
    );
    const ps = await eventually(
      () => seen.find((m) => m.topic === `hearth/${h.siteid}/light/${plain._id}/state` && m.body.bri === 51),
      'the plain state',
    );
    expect(ps.body).toEqual({ state: 'ON', brightness: 51, on: true, bri: 51 });
  });
});
