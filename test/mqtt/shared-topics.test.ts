/**
 * Topics that several devices listen on — Tasmota's group topic (`cmnd/tasmotas/…` as shipped) and fallback
 * topic (`cmnd/<client id>_fb/…`), a zigbee2mqtt group (`zigbee2mqtt/<group>/set`) — belong to the sites
 * whose devices listen there: another site's credential can neither command nor subscribe to them, while
 * Hearth keeps commanding each device on its own topic.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasmotaBulb, type TasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let cabin: { siteid: string; sitekey: string };
let kitchen: TasmotaBulb;
let cabinLamp: TasmotaBulb;
let homeBridge: MqttClient;
const bridgeGot: string[] = [];
let cabinPw = '';
const clients: MqttClient[] = [];

beforeAll(async () => {
  h = await startMqttHub();
  cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as typeof cabin;
  // Home: a Tasmota as shipped (GroupTopic `tasmotas`), named by a light, and a zigbee2mqtt bridge.
  const kitchenPw = await h.credential('kitchen-bulb');
  kitchen = await startTasmotaBulb({
    url: h.t.mqttUrl,
    topic: 'kitchen',
    username: 'kitchen-bulb',
    password: kitchenPw,
  });
  const bridgePw = await h.credential('home-z2m');
  homeBridge = await mqtt.connectAsync(h.t.mqttUrl, {
    username: 'home-z2m',
    password: bridgePw,
    reconnectPeriod: 0,
  });
  clients.push(homeBridge);
  homeBridge.on('message', (t) => bridgeGot.push(t));
  // zigbee2mqtt subscribes to its whole base topic.
  await homeBridge.subscribeAsync('zigbee2mqtt/#');
  // Cabin: its own Tasmota with a GroupTopic of its own, as the docs tell a household to set.
  const lampPw = await h.credential('cabin-lamp', undefined, cabin.siteid);
  cabinLamp = await startTasmotaBulb({
    url: h.t.mqttUrl,
    topic: 'cabin-lamp',
    username: 'cabin-lamp',
    password: lampPw,
    groupTopic: 'cabin-all',
  });
  cabinPw = await h.credential('cabin-node-red', undefined, cabin.siteid);
  expect((await h.site('POST', '/light', light('tasmota:kitchen'))).status).toBe(201);
  await eventually(
    async () => ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[]).length > 0 || undefined,
    'the device claimed for Home',
  );
});
afterAll(async () => {
  for (const c of clients.splice(0)) await c.endAsync(true);
  await kitchen.stop();
  await cabinLamp.stop();
  await h.stop();
});

const light = (mqttid: string) => ({ name: 'Kitchen', type: 'dimmable', vendor: 'mqtt', mqttid });

const cabinClient = async () => {
  const c = await mqtt.connectAsync(h.t.mqttUrl, {
    username: 'cabin-node-red',
    password: cabinPw,
    reconnectPeriod: 0,
  });
  clients.push(c);
  return c;
};

/** Whether publishing closes the connection (a refused PUBLISH, core README); judged once a QoS 1 round trip is back. */
async function publishRefused(topic: string, payload: string): Promise<boolean> {
  const c = await cabinClient();
  c.publish(topic, payload);
  await Promise.race([
    new Promise<void>((resolve) => c.once('close', () => resolve())),
    c.publishAsync('unclaimed/probe', 'p', { qos: 1 }).catch(() => undefined),
  ]);
  return !c.connected;
}

/** The granted QoS per filter (128 = refused), one SUBSCRIBE each. */
async function suback(c: MqttClient, filters: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const f of filters) {
    try {
      out.push((await c.subscribeAsync(f))[0]!.qos);
    } catch (err) {
      out.push((err as { packet?: { granted?: number[] } }).packet?.granted?.[0] ?? -1);
    }
  }
  return out;
}

describe("a site's credential reaches another site's devices through shared topics (regression)", () => {
  it("refuses another site's Tasmota group topic, its fallback topic and a zigbee2mqtt group of its bridge", async () => {
    for (const topic of ['cmnd/tasmotas/POWER', 'cmnd/DVES_kitchen_fb/POWER', 'cmnd/tasmotas/Dimmer']) {
      expect(await publishRefused(topic, 'ON'), topic).toBe(true);
    }
    expect(await publishRefused('zigbee2mqtt/upstairs/set', '{"state":"ON"}')).toBe(true);
    expect(await publishRefused('zigbee2mqtt/bridge/request/permit_join', '{"value":true}')).toBe(true);
    expect(kitchen.received.filter((r) => r.payload !== '')).toEqual([]);
    expect(kitchen.power).toBe(false);
    expect(bridgeGot.filter((t) => t.endsWith('/set') || t.includes('/request/'))).toEqual([]);
  });

  it('lets a site command its own group topic, and Hearth command each device on its own topic', async () => {
    expect(await publishRefused('cmnd/cabin-all/POWER', 'ON')).toBe(false);
    await eventually(() => cabinLamp.power || undefined, 'the cabin lamp on through its own group');
    const own = (await h.site('GET', '/light')).body.find((l: Json) => l.mqttid === 'tasmota:kitchen');
    expect((await h.site('PUT', '/light/state', { _id: own._id, on: true, bri: 255 })).status).toBe(200);
    await eventually(() => kitchen.power || undefined, 'the kitchen bulb on through Hearth');
    expect(kitchen.received.map((r) => r.topic).every((t) => t.startsWith('cmnd/kitchen/'))).toBe(true);
  });

  it("answers SUBACK 0x80 to another site's group, fallback and bridge topics as to its device and hearth topics", async () => {
    const c = await cabinClient();
    expect(
      await suback(c, [
        'cmnd/tasmotas/#',
        'cmnd/DVES_kitchen_fb/#',
        'cmnd/tasmotas/POWER',
        'zigbee2mqtt/upstairs/set',
        'stat/kitchen/#',
        `hearth/${h.siteid}/#`,
        `hearth/${h.siteid}/light/x/state`,
      ]),
    ).toEqual([128, 128, 128, 128, 128, 128, 128]);
    expect(await suback(c, ['cmnd/cabin-all/#', `hearth/${cabin.siteid}/#`])).toEqual([0, 0]);
    // A watcher of a whole namespace is granted, but carries no command sent to another site's group.
    const got: string[] = [];
    c.on('message', (t) => t.startsWith('cmnd/') && got.push(t));
    expect(await suback(c, ['cmnd/+/POWER'])).toEqual([0]);
    const homeTool = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'home-tool',
      password: await h.credential('home-tool'),
      reconnectPeriod: 0,
    });
    clients.push(homeTool);
    await homeTool.publishAsync('cmnd/tasmotas/POWER', 'OFF', { qos: 1 });
    await c.publishAsync('cmnd/cabin-all/POWER', 'ON', { qos: 1 });
    await eventually(() => got.includes('cmnd/cabin-all/POWER') || undefined, 'the own group command');
    expect(got).toEqual(['cmnd/cabin-all/POWER']);
    await eventually(() => !kitchen.power || undefined, "Home's own group command reaching its bulb");
  });
});

describe('a group topic that a device of no site listens on (mqtt.allowAnonymous)', () => {
  it("is refused to a site's credential like another site's", async () => {
    const hub = await startMqttHub({ mqtt: { allowAnonymous: true } });
    const loose = await startTasmotaBulb({ url: hub.t.mqttUrl, topic: 'garage' });
    const pw = await hub.credential('home-tool');
    const c = await mqtt.connectAsync(hub.t.mqttUrl, {
      username: 'home-tool',
      password: pw,
      reconnectPeriod: 0,
    });
    try {
      expect(await suback(c, ['cmnd/tasmotas/#'])).toEqual([128]);
      c.publish('cmnd/tasmotas/POWER', 'ON');
      await eventually(() => !c.connected || undefined, 'the connection to close');
      expect(loose.power).toBe(false);
    } finally {
      await c.endAsync(true);
      await loose.stop();
      await hub.stop();
    }
  });
});
