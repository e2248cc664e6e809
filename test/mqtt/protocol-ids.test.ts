/**
 * A protocol id that can name no device (`tasmota:+`, `TASMOTA:kitchen`, a Hue id that is no CLIP v2 id) was
 * stored with 201 and every command to the light failed with 502. It is refused with 400 naming the field,
 * on create, update and adoption, for every vendor whose plugin knows its ids; nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
beforeAll(async () => {
  h = await startMqttHub({}, ['lighting', 'mqtt-devices', 'hue', 'zigbee']);
});
afterAll(() => h.stop());

const light = (vendor: string, id: string) => ({
  name: 'Lamp',
  type: 'dimmable',
  vendor,
  [`${vendor}id`]: id,
});
const refused = (field: string) => ({
  status: 400,
  body: { message: expect.stringMatching(new RegExp(`^${field}\\b`)) },
});

const BAD = {
  mqtt: [
    'tasmota:+',
    'tasmota:#',
    'tasmota:kitchen/',
    ' tasmota:kitchen',
    'tasmota:kitchen ',
    'TASMOTA:kitchen',
    'tasmota:a/b',
    'zigbee2mqtt:hall//lamp',
    'zigbee2mqtt:hall/+',
    'shelly1:abc:relay:x',
    'shelly2:porch:dimmer:0',
    'kitchen',
    'ha:bad/#',
  ],
  hue: ['light-1', '00000001-0000-4000-8000-00000000000A', 'grouped_light/', '1'],
  zigbee: ['0x123/1', '0x00158d0001a2b3c4', 'lamp', '0x00158d0001a2b3c4/1 '],
};
const GOOD = {
  mqtt: [
    'tasmota:kitchen',
    'zigbee2mqtt:Living room/lamp',
    'shelly1:abc:light:0',
    'shelly2:porch:switch:1',
    'ha:0x1234_light',
  ],
  hue: ['00000001-0000-4000-8000-00000000000a', 'grouped_light/00000004-0000-4000-8000-000000000001'],
  zigbee: ['0x00158d0001a2b3c4/1'],
};

describe('a protocol id that can name no device is accepted (regression)', () => {
  it('POST /light and POST /sensor refuse it with 400 naming <vendor>id, for mqtt, hue and zigbee', async () => {
    for (const [vendor, ids] of Object.entries(BAD))
      for (const id of ids) {
        expect(await h.site('POST', '/light', light(vendor, id)), `${vendor} ${id}`).toEqual(
          refused(`${vendor}id`),
        );
        const sensor = { name: 'Button', type: 'button', vendor, [`${vendor}id`]: id };
        expect(await h.site('POST', '/sensor', sensor), `${vendor} ${id}`).toEqual(refused(`${vendor}id`));
      }
    expect((await h.site('GET', '/light')).body).toEqual([]);
    expect((await h.site('GET', '/sensor')).body).toEqual([]);
  });

  it('the message says what the id lacks', async () => {
    expect((await h.site('POST', '/light', light('mqtt', 'tasmota:+'))).body.message).toBe(
      'mqttid tasmota:+ names no device: an address has no MQTT wildcards (+, #)',
    );
    expect((await h.site('POST', '/light', light('mqtt', 'TASMOTA:kitchen'))).body.message).toMatch(
      /unknown profile TASMOTA/,
    );
    expect((await h.site('POST', '/light', light('mqtt', ' tasmota:kitchen'))).body.message).toBe(
      'mqttid must not start or end with spaces',
    );
  });

  it('takes ids that name devices, and PUT /light cannot change one to an id that names none', async () => {
    const made: Json[] = [];
    for (const [vendor, ids] of Object.entries(GOOD))
      for (const id of ids) {
        const res = await h.site('POST', '/light', { ...light(vendor, id), name: id });
        expect(res.status, `${vendor} ${id}`).toBe(201);
        made.push(res.body);
      }
    const kitchen = made[0];
    expect(await h.site('PUT', '/light', { _id: kitchen._id, mqttid: 'tasmota:#' })).toEqual(
      refused('mqttid'),
    );
    expect(await h.site('PUT', '/light', { _id: kitchen._id, protocolid: 'tasmota:#' })).toEqual(
      refused('mqttid'),
    );
    expect(await h.site('PUT', '/light', { _id: kitchen._id, vendor: 'hue', hueid: 'kitchen' })).toEqual(
      refused('hueid'),
    );
    expect((await h.site('PUT', '/light', { _id: kitchen._id, name: 'Kitchen' })).status).toBe(200);
    const after = (await h.site('GET', '/light')).body.find((l: Json) => l._id === kitchen._id);
    expect(after).toMatchObject({ name: 'Kitchen', vendor: 'mqtt', mqttid: 'tasmota:kitchen' });
  });

  it('adoption by another plugin (the export createLight / createSensor) is refused the same way', async () => {
    await expect(
      h.lighting.createLight(h.siteid, {
        name: 'X',
        type: 'dimmable',
        vendor: 'mqtt',
        protocolid: 'tasmota:+',
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      h.lighting.createSensor(h.siteid, { name: 'X', vendor: 'zigbee', protocolid: 'nope', type: 'button' }),
    ).rejects.toMatchObject({ status: 400 });
    expect((await h.site('GET', '/sensor')).body).toEqual([]);
  });
});
