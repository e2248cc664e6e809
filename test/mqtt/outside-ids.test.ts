/**
 * Names that devices and operators choose (config keys, event codes, device ids) that are also
 * Object.prototype's members are just names: `toString` in a Home Assistant config, `constructor` as a
 * Shelly input code, `__proto__` as a device id.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let client: mqtt.MqttClient;
beforeAll(async () => {
  h = await startMqttHub({ mqtt: { allowAnonymous: true } });
  client = await mqtt.connectAsync(h.t.mqttUrl, { clientId: 'odd-device' });
});
afterAll(async () => {
  await client.endAsync();
  await h.stop();
});

describe('outside names like toString, constructor and __proto__', () => {
  it('discovers a Home Assistant light whose config also carries toString, constructor and __proto__ keys', async () => {
    const config =
      '{"~":"odd","schema":"json","name":"Odd","uniq_id":"odd-light","cmd_t":"~/set","stat_t":"~/state",' +
      '"brightness":true,"toString":"x","constructor":1,"__proto__":{"cmd_t":"evil/set"}}';
    await client.publishAsync('homeassistant/light/odd/light/config', config, { retain: true });
    const light = await eventually(
      async () => (await h.site('GET', '/light')).body.find((l: Json) => l.mqttid === 'ha:odd-light'),
      'the discovered light',
    );
    const sent: string[] = [];
    await client.subscribeAsync(['odd/set', 'evil/set']);
    client.on('message', (topic) => sent.push(topic));
    expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255 })).status).toBe(200);
    await eventually(() => sent.length > 0, 'the command');
    expect(sent).toEqual(['odd/set']);
  });

  it('takes no Shelly input code named constructor or toString for an event', async () => {
    const sensor = (
      await h.site('POST', '/sensor', {
        name: 'Odd button',
        vendor: 'mqtt',
        mqttid: 'shelly1:odd',
        type: 'button',
      })
    ).body;
    for (const event of ['constructor', 'toString', 'S'])
      await client.publishAsync('shellies/odd/input_event/0', JSON.stringify({ event, event_cnt: 1 }));
    const events = await eventually(async () => {
      const list = (await h.site('GET', '/sensor/event')).body.filter((e: Json) => e._id === sensor._id);
      return list.length > 0 ? list : undefined;
    }, 'the press');
    expect(events.map((e: Json) => e.event)).toEqual(['input0-single']);
  });

  it('refuses to register a device whose id is a bare word like __proto__ or constructor', async () => {
    for (const mqttid of ['__proto__', 'constructor']) {
      const res = await h.t.admin('POST', '/admin/mqtt/devices', {
        mqttid,
        profile: 'tasmota',
        address: 'odd',
        site: h.siteid,
      });
      expect(res.status, mqttid).toBe(400);
    }
    const devices = (await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[];
    expect(devices.map((d) => d.mqttid)).not.toContain('constructor');
  });
});
