/**
 * A light bound to an MQTT device that is already on shows the device's state at once, over the real broker:
 * the MQTT driver asks the device (Tasmota `STATE`) when the light is created or moved to it, instead of
 * showing it off until the device next reports on its own (a Tasmota reports only when asked or switched).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let sim: { url: string; username: string; password: string };
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  h = await startMqttHub();
  sim = { url: h.t.mqttUrl, username: 'devices', password: await h.credential('devices') };
});
afterAll(async () => {
  for (const stop of stops) await stop();
  await h.stop();
});

const lightNow = async (id: string): Promise<Json> =>
  (await h.site('GET', '/light')).body.find((l: Json) => l._id === id);

describe('a light bound to an MQTT device that is already on', () => {
  it('POST /light shows the bulb on at its level, read from the bulb, without switching it', async () => {
    const bulb = await startTasmotaBulb({ ...sim, topic: 'porch', onAt: 60 });
    stops.push(() => bulb.stop());
    const res = await h.site('POST', '/light', {
      name: 'Porch',
      type: 'dimmable',
      vendor: 'mqtt',
      mqttid: 'tasmota:porch',
    });
    expect(res.status).toBe(201);
    const light = await eventually(async () => {
      const now = await lightNow(res.body._id);
      return now.on === true ? now : undefined;
    }, 'the porch light shown on');
    expect(light.bri).toBe(Math.round((60 * 255) / 100));
    // Read, not commanded: the bulb was asked for its state and never told to switch.
    const sent = bulb.received.map((r) => `${r.topic} ${r.payload}`.trim());
    expect(sent.some((s) => s.startsWith('cmnd/porch/STATE'))).toBe(true);
    expect(sent.filter((s) => !s.startsWith('cmnd/porch/STATE'))).toEqual([]);
    expect(bulb.power).toBe(true);
  });

  it('PUT /light moving a light to another bulb that is on shows that bulb', async () => {
    const off = await startTasmotaBulb({ ...sim, topic: 'shedoff' });
    const on = await startTasmotaBulb({ ...sim, topic: 'shedon', onAt: 100 });
    stops.push(
      () => off.stop(),
      () => on.stop(),
    );
    const res = await h.site('POST', '/light', {
      name: 'Shed',
      type: 'dimmable',
      vendor: 'mqtt',
      mqttid: 'tasmota:shedoff',
    });
    expect(res.status).toBe(201);
    await eventually(async () => off.received.length > 0, 'the first bulb asked');
    expect((await lightNow(res.body._id)).on).toBe(false);
    const moved = await h.site('PUT', '/light', { _id: res.body._id, mqttid: 'tasmota:shedon' });
    expect(moved.status).toBe(200);
    await eventually(async () => (await lightNow(res.body._id)).on === true, 'the moved light shown on');
    expect(on.received.every((r) => r.topic.startsWith('cmnd/shedon/STATE'))).toBe(true);
  });
});
