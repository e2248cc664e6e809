/**
 * On/off-only lights over the real broker, for every profile: a light of type `binary` is switched the way
 * its device is switched (Tasmota `POWER ON`, zigbee2mqtt `{"state":"ON"}` without a brightness the device
 * cannot take, Shelly `turn`/`on` without a level, Home Assistant without `brightness`), whatever the
 * driver guessed from the id, and the device's own report confirms it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHaJsonBulb } from '../../scripts/simulators/ha-json-bulb.ts';
import { startShellyDimmer } from '../../scripts/simulators/shelly-dimmer.ts';
import { startShellyRelay } from '../../scripts/simulators/shelly-relay.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let sim: { url: string; username: string; password: string };
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  // Devices are added on the site API here, not adopted from zigbee2mqtt's listing.
  h = await startMqttHub({ plugins: { 'mqtt-devices': { zigbee2mqttDiscovery: false } } });
  sim = { url: h.t.mqttUrl, username: 'devices', password: await h.credential('devices') };
});
afterAll(async () => {
  for (const stop of stops) await stop();
  await h.stop();
});

async function binaryLight(name: string, mqttid: string): Promise<Json> {
  const res = await h.site('POST', '/light', { name, type: 'binary', vendor: 'mqtt', mqttid });
  expect(res.status).toBe(201);
  return res.body;
}

async function switchOn(light: Json): Promise<void> {
  const put = await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255 });
  expect(put.status).toBe(200);
  await eventually(async () => {
    const now = (await h.site('GET', '/light')).body.find((l: Json) => l._id === light._id);
    return now.on === true && now.bri === 255;
  }, `${light.name} reported on`);
}

describe('a binary Tasmota light never switches on (regression)', () => {
  it('sends a Tasmota relay POWER ON, never Dimmer, and its report confirms it', async () => {
    const relay = await startTasmotaBulb({ ...sim, topic: 'hallrelay', relay: true });
    stops.push(() => relay.stop());
    const light = await binaryLight('Hall', 'tasmota:hallrelay');
    await switchOn(light);
    expect(relay.power).toBe(true);
    const sent = relay.received.filter((r) => r.payload !== '').map((r) => `${r.topic} ${r.payload}`);
    expect(sent).toEqual(['cmnd/hallrelay/POWER ON']);
    const off = await h.site('PUT', '/light/state', { _id: light._id, on: false, bri: 0 });
    expect(off.status).toBe(200);
    await eventually(() => relay.power === false, 'the relay off');
  });

  it('sends a zigbee2mqtt on/off plug its state only (no brightness it has no converter for)', async () => {
    const z2m = await startZigbee2mqtt({ ...sim, devices: [{ name: 'plug', type: 'plug' }] });
    stops.push(() => z2m.stop());
    await switchOn(await binaryLight('Plug', 'zigbee2mqtt:plug'));
    expect(z2m.bulb('plug').state).toBe('ON');
    expect(z2m.errors).toEqual([]);
    const sets = z2m.received
      .filter((r) => r.topic === 'zigbee2mqtt/plug/set')
      .map((r) => JSON.parse(r.payload));
    expect(sets).toEqual([{ state: 'ON' }]);
  });

  it('switches a Shelly Gen1 dimmer used as an on/off light without touching its level', async () => {
    const dimmer = await startShellyDimmer({ ...sim, id: 'shellydimmer-b1' });
    stops.push(() => dimmer.stop());
    await switchOn(await binaryLight('Stairs', 'shelly1:shellydimmer-b1:light:0'));
    expect(dimmer.ison).toBe(true);
    expect(dimmer.brightness).toBe(50);
    const sets = dimmer.received
      .filter((r) => r.topic.endsWith('/light/0/set'))
      .map((r) => JSON.parse(r.payload));
    expect(sets).toEqual([{ turn: 'on' }]);
  });

  it('switches a Shelly Gen2 relay', async () => {
    const relay = await startShellyRelay({ ...sim, prefix: 'shellyplus1-b2' });
    stops.push(() => relay.stop());
    await switchOn(await binaryLight('Porch', 'shelly2:shellyplus1-b2'));
    expect(relay.output).toBe(true);
  });

  it('sends a Home Assistant JSON light whose light was made binary no brightness', async () => {
    const bulb = await startHaJsonBulb({ ...sim, node: 'lampb' });
    stops.push(() => bulb.stop());
    // Announced with brightness: discovery makes it a dimmable light; the operator makes it on/off only.
    const light = await eventually(
      async () => (await h.site('GET', '/light')).body.find((l: Json) => l.mqttid === 'ha:lampb-light'),
      'the discovered light',
    );
    expect(light.type).toBe('dimmable');
    expect((await h.site('PUT', '/light', { _id: light._id, type: 'binary' })).status).toBe(200);
    await switchOn(light);
    const commands = bulb.received.map((r) => JSON.parse(r.payload));
    expect(commands).toEqual([{ state: 'ON' }]);
  });
});
