/**
 * One broker serves every site, so an MQTT device belongs to one site: another site cannot name it in a
 * light or sensor (create, change, adoption, registration), and a site's driver neither commands a device
 * of another site nor passes on its reports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasmotaBulb, type TasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let bulb: TasmotaBulb;
let other: { siteid: string; sitekey: string };

async function siteB(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${h.t.url}/api/site/${other.sitekey}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const lightOf = async (call: typeof siteB, id: string) =>
  (await call('GET', '/light')).body.find((l: Json) => l._id === id);
const kitchen = { name: 'Kitchen', type: 'dimmable', vendor: 'mqtt', mqttid: 'tasmota:kitchen' };

beforeAll(async () => {
  h = await startMqttHub();
  other = (await h.t.admin('POST', '/admin/sites', { name: 'Neighbour' })).body as typeof other;
  const password = await h.credential('kitchen-bulb');
  bulb = await startTasmotaBulb({ url: h.t.mqttUrl, topic: 'kitchen', username: 'kitchen-bulb', password });
});
afterAll(async () => {
  await bulb.stop();
  await h.stop();
});

describe("a site can drive another site's MQTT device (regression)", () => {
  let homeLight: Json;

  it("refuses a light or sensor on site B that names site A's device, on every path, with 409", async () => {
    homeLight = (await h.site('POST', '/light', kitchen)).body;
    expect((await h.site('PUT', '/light/state', { _id: homeLight._id, on: true, bri: 255 })).status).toBe(
      200,
    );
    await eventually(() => bulb.power, 'the bulb on');

    const refused = { status: 409, body: { message: 'mqttid tasmota:kitchen is a device of another site' } };
    expect(await siteB('POST', '/light', kitchen)).toEqual(refused);
    const sensor = { name: 'Btn', vendor: 'mqtt', mqttid: 'tasmota:kitchen', type: 'button' };
    expect(await siteB('POST', '/sensor', sensor)).toEqual(refused);
    // Changing a light of B to name the device.
    const own = (await siteB('POST', '/light', { ...kitchen, mqttid: 'tasmota:hall' })).body;
    expect(await siteB('PUT', '/light', { _id: own._id, mqttid: 'tasmota:kitchen' })).toEqual(refused);
    // Another plugin adopting a device for B (the export createLight).
    await expect(
      h.lighting.createLight(other.siteid, {
        name: 'Kitchen',
        type: 'dimmable',
        vendor: 'mqtt',
        protocolid: 'tasmota:kitchen',
      }),
    ).rejects.toMatchObject({ status: 409 });
    // The operator registering it for B.
    const reg = await h.t.admin('POST', '/admin/mqtt/devices', {
      mqttid: 'tasmota:kitchen',
      site: other.siteid,
    });
    expect(reg.status).toBe(409);
    expect((await siteB('GET', '/light')).body.map((l: Json) => l.mqttid)).toEqual(['tasmota:hall']);
  });

  it('treats two ids of one device as the same device, and a device only named by a light as that site’s', async () => {
    // Named by a light of Home only (never commanded): the other site cannot take it either.
    expect(
      (await h.site('POST', '/light', { ...kitchen, name: 'Relay', mqttid: 'shelly1:sh-7' })).status,
    ).toBe(201);
    const alias = await siteB('POST', '/light', {
      ...kitchen,
      name: 'Relay',
      mqttid: 'shelly1:sh-7:relay:0',
    });
    expect(alias).toEqual({
      status: 409,
      body: { message: 'mqttid shelly1:sh-7:relay:0 is a device of another site' },
    });
  });

  it('neither commands a device of another site nor passes on its reports', async () => {
    // A bulb on the neighbour's credential, first named by a light of Home, then moved by the operator to
    // the neighbour: Home's light stays, but the bulb is not Home's any more.
    const password = await h.credential('pantry-bulb', undefined, other.siteid);
    const pantry = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'pantry',
      username: 'pantry-bulb',
      password,
    });
    try {
      const homes = (await h.site('POST', '/light', { ...kitchen, name: 'Pantry', mqttid: 'tasmota:pantry' }))
        .body;
      await eventually(
        async () =>
          ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[]).find(
            (d) => d.mqttid === 'tasmota:pantry',
          ),
        'the device claimed for Home',
      );
      const moved = await h.t.admin('PATCH', '/admin/mqtt/devices/tasmota:pantry', { site: other.siteid });
      expect(moved.status).toBe(200);
      const before = pantry.received.length;
      const put = await h.site('PUT', '/light/state', { _id: homes._id, on: true, bri: 255 });
      expect(put).toEqual({
        status: 409,
        body: { message: `light ${homes._id}: its mqtt device belongs to another site` },
      });
      expect(pantry.received.slice(before).filter((r) => r.payload !== '')).toEqual([]);
      expect(pantry.power).toBe(false);

      // The new owner drives it; its reports reach the new owner only.
      const theirs = (await siteB('POST', '/light', { ...kitchen, name: 'Pantry', mqttid: 'tasmota:pantry' }))
        .body;
      expect((await siteB('PUT', '/light/state', { _id: theirs._id, on: true, bri: 128 })).status).toBe(200);
      await eventually(() => pantry.dimmer === 50, 'the bulb at 50 %');
      await eventually(async () => (await lightOf(siteB, theirs._id)).bri === 128, "the new owner's report");
      expect(await lightOf(h.site, homes._id)).toMatchObject({ on: false, bri: 0 });
    } finally {
      await pantry.stop();
    }
  });
});
