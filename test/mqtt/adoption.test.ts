/**
 * Discovered devices become lighting lights and sensors of the discovery site, marked new, through
 * the real hub with real zigbee2mqtt / Home Assistant clients: no duplicates when retained discovery is
 * replayed at a restart (Debian's mosquitto keeps it), a light the operator deleted is not recreated, the
 * device's and the light's `new` marks move together, and a device that disappears keeps its light.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHaJsonBulb } from '../../scripts/simulators/ha-json-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { startMosquitto } from './fixtures.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

async function siteGet(base: string, sitekey: string, what: string): Promise<Json[]> {
  return (await (await fetch(`${base}/api/site/${sitekey}${what}`)).json()) as Json[];
}
const byMqttid = (list: Json[], id: string) => list.filter((x) => x.mqttid === id);

describe('discovered devices on the discovery site', () => {
  it('become a light and a sensor marked new that work; accepting either side clears both', async () => {
    const h: MqttHub = await startMqttHub({ mqtt: { allowAnonymous: true } });
    stops.push(() => h.stop());
    const z2m = await startZigbee2mqtt({
      url: h.t.mqttUrl,
      devices: [
        { name: 'hall', type: 'bulb' },
        { name: 'hall switch', type: 'switch' },
      ],
    });
    stops.push(() => z2m.stop());
    const light = await eventually(
      async () => byMqttid((await h.site('GET', '/light')).body, 'zigbee2mqtt:hall')[0],
      'the discovered light',
    );
    expect(light).toMatchObject({
      name: 'hall',
      type: 'dimmable',
      vendor: 'mqtt',
      siteid: h.siteid,
      new: true,
    });
    const sensor = await eventually(
      async () => byMqttid((await h.site('GET', '/sensor')).body, 'zigbee2mqtt:hall switch')[0],
      'the discovered sensor',
    );
    expect(sensor).toMatchObject({
      name: 'hall switch',
      type: 'button',
      events: ['on', 'off', 'brightness_move_up', 'brightness_move_down'],
      new: true,
    });
    const marks = async () =>
      ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[])
        .map((d) => `${d.mqttid} new=${d.new} adopted=${d.adopted}`)
        .sort()
        .join(', ');
    const both = 'zigbee2mqtt:hall new=true adopted=true, zigbee2mqtt:hall switch new=true adopted=true';
    await eventually(async () => ((await marks()) === both ? true : undefined), 'both marked adopted');

    // The light works as any other, and the switch's events reach its actions.
    expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 100 })).status).toBe(200);
    await eventually(() => z2m.bulb('hall').state === 'ON' || undefined, 'the bulb on');
    await h.site('POST', '/sensor/action', {
      _id: sensor._id,
      event: 'off',
      action: { type: 'light', _id: light._id, on: false, bri: 0 },
    });
    await z2m.press('hall switch', 'off');
    await eventually(() => z2m.bulb('hall').state === 'OFF' || undefined, 'the bound action');

    // Accepting the light on the site API accepts the device; accepting the device accepts the sensor.
    expect((await h.site('PUT', '/light', { _id: light._id, new: false })).body.new).toBe(false);
    await eventually(async () => {
      const d = ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[]).find(
        (x) => x.mqttid === 'zigbee2mqtt:hall',
      );
      return d?.new === false || undefined;
    }, 'the device accepted with its light');
    const patched = await h.t.admin(
      'PATCH',
      `/admin/mqtt/devices/${encodeURIComponent('zigbee2mqtt:hall switch')}`,
      { new: false },
    );
    expect(patched.status).toBe(200);
    await eventually(
      async () => (await h.site('GET', '/sensor')).body[0]?.new === false || undefined,
      'the sensor accepted with its device',
    );

    // A device that disappears is marked unavailable; its light and sensor stay.
    await z2m.remove('hall');
    await eventually(async () => {
      const d = ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[]).find(
        (x) => x.mqttid === 'zigbee2mqtt:hall',
      );
      return d?.gone || undefined;
    }, 'the removed bulb marked');
    expect(byMqttid((await h.site('GET', '/light')).body, 'zigbee2mqtt:hall')).toHaveLength(1);
  });

  it('a Home Assistant light and its trigger are adopted; a light made by hand first is not duplicated', async () => {
    const h = await startMqttHub({ mqtt: { allowAnonymous: true } });
    stops.push(() => h.stop());
    const mine = await h.site('POST', '/light', {
      name: 'My lamp',
      type: 'dimmable',
      vendor: 'mqtt',
      mqttid: 'ha:esp2-light',
    });
    expect(mine.status).toBe(201);
    const a = await startHaJsonBulb({ url: h.t.mqttUrl, node: 'esp1' });
    stops.push(() => a.stop());
    const b = await startHaJsonBulb({ url: h.t.mqttUrl, node: 'esp2' });
    stops.push(() => b.stop());
    const lamp = await eventually(
      async () => byMqttid((await h.site('GET', '/light')).body, 'ha:esp1-light')[0],
      'the HA light',
    );
    expect(lamp).toMatchObject({ name: 'Lamp esp1', type: 'dimmable', new: true });
    await eventually(
      async () => byMqttid((await h.site('GET', '/sensor')).body, 'ha:esp-esp1')[0],
      'the HA trigger as a sensor',
    );
    await eventually(async () => {
      const list = (await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[];
      return list.find((d) => d.mqttid === 'ha:esp2-light')?.adopted || undefined;
    }, 'the hand-made light counted as adopted');
    const esp2 = byMqttid((await h.site('GET', '/light')).body, 'ha:esp2-light');
    expect(esp2).toEqual([expect.objectContaining({ _id: mine.body._id, name: 'My lamp', new: false })]);
  });

  it('retained discovery replayed at a restart creates no duplicate, and a deleted light stays deleted', async () => {
    const broker = await startMosquitto();
    stops.push(() => broker.stop());
    const h = await startMqttHub({ mqtt: { external: { url: broker.url } } });
    let hub = h.t;
    stops.push(() => hub.stop());
    const z2m = await startZigbee2mqtt({
      url: broker.url,
      devices: [
        { name: 'desk', type: 'bulb' },
        { name: 'porch', type: 'bulb' },
      ],
    });
    stops.push(() => z2m.stop());
    const lights = async () => siteGet(hub.url, h.sitekey, '/light');
    await eventually(async () => ((await lights()).length === 2 ? true : undefined), 'two adopted lights');
    const porch = byMqttid(await lights(), 'zigbee2mqtt:porch')[0];
    expect((await h.site('DELETE', `/light/${porch._id}`)).status).toBe(204);

    hub = await hub.restart(); // mosquitto keeps bridge/devices: the new hub gets it replayed
    await eventually(async () => {
      const list = (await hub.admin('GET', '/admin/mqtt/devices')).body as Json[];
      return list.length === 2 && list.every((d) => d.available === true) ? true : undefined;
    }, 'the devices rediscovered after the restart');
    await new Promise((r) => setTimeout(r, 300));
    const after = await lights();
    expect(after.map((l) => l.mqttid)).toEqual(['zigbee2mqtt:desk']);
  }, 30_000);
});
