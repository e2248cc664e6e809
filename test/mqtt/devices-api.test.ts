/**
 * The device registry's admin API: registration of a Home Assistant JSON light by its topics (then driven
 * from the site API; one that never reports is settled by lighting's reconcile timeout), moving and
 * forgetting devices, and clear 4xx answers for bad input.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHaJsonBulb } from '../../scripts/simulators/ha-json-bulb.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

describe('/admin/mqtt/devices', () => {
  let h: MqttHub;
  afterEach(() => h.stop());

  it('registers a Home Assistant JSON light by its topics and drives it', async () => {
    // Discovery off: the operator gives the topics by hand.
    h = await startMqttHub({
      mqtt: { allowAnonymous: true },
      plugins: { 'mqtt-devices': { discoverySite: '' } },
    });
    const bulb = await startHaJsonBulb({ url: h.t.mqttUrl, node: 'desk', scale: 100 });
    try {
      const created = await h.t.admin('POST', '/admin/mqtt/devices', {
        mqttid: 'ha:desk',
        profile: 'ha-json',
        address: 'desk',
        kind: 'dimmable',
        site: 'Home',
        ha: {
          commandTopic: 'esphome/desk/set',
          stateTopic: 'esphome/desk/state',
          availabilityTopic: 'esphome/desk/status',
          brightnessScale: 100,
        },
      });
      expect(created.status).toBe(201);
      const light = (
        await h.site('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'mqtt', mqttid: 'ha:desk' })
      ).body;
      expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255 })).status).toBe(200);
      await eventually(
        () => (bulb.state.brightness === 100 && bulb.state.state === 'ON') || undefined,
        'the HA bulb on',
      );
      const after = await eventually(async () => {
        const l = ((await h.site('GET', '/light')).body as Json[])[0];
        return l.on ? l : undefined;
      }, 'the reported level');
      expect(after).toMatchObject({ on: true, bri: 255 });
    } finally {
      await bulb.stop();
    }
  });

  it('a light that never reports (HA JSON without a state topic) is settled by the lighting timeout', async () => {
    h = await startMqttHub({ plugins: { 'mqtt-devices': { discoverySite: '' } } });
    const created = await h.t.admin('POST', '/admin/mqtt/devices', {
      mqttid: 'ha:mute',
      profile: 'ha-json',
      address: 'mute',
      kind: 'dimmable',
      site: 'Home',
      ha: { commandTopic: 'mute/set' },
    });
    expect(created.status).toBe(201);
    const light = (
      await h.site('POST', '/light', { name: 'Mute', type: 'dimmable', vendor: 'mqtt', mqttid: 'ha:mute' })
    ).body;
    const at = Date.now();
    expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 90 })).status).toBe(200);
    // Nobody answers on the bus; after lighting's reconcileMs (2 s here) the desired level stands.
    const settled = await eventually(async () => {
      const l = ((await h.site('GET', '/light')).body as Json[])[0];
      return l.on ? l : undefined;
    }, 'the reconciled level');
    expect(settled).toMatchObject({ on: true, bri: 90 });
    expect(Date.now() - at).toBeGreaterThanOrEqual(1900);
  });

  it('answers bad input with 4xx JSON and changes nothing', async () => {
    h = await startMqttHub();
    expect(
      (await h.t.admin('POST', '/admin/mqtt/devices', { mqttid: 'tasmota:hall', site: 'Home' })).status,
    ).toBe(201);
    const cases: Array<[unknown, number]> = [
      [{ mqttid: 'tasmota:hall', site: 'Home' }, 409],
      [{ mqttid: 'nope', site: 'Home' }, 400],
      [{ mqttid: 'tasmota:a/b', site: 'Home' }, 400],
      [{ mqttid: 'zigbee2mqtt:#', site: 'Home' }, 400],
      [{ mqttid: 'shelly1:x:dimmer:0', site: 'Home' }, 400],
      [{ mqttid: 'ha:x', profile: 'ha-json', address: 'x', site: 'Home' }, 400],
      [{ mqttid: 'ha:x', profile: 'ha-json', address: 'x', site: 'Home', ha: { commandTopic: 'a/#' } }, 400],
      [{ mqttid: 'ha:x', profile: 'ha-json', address: 'x', site: 'Home', ha: { brightnessScale: 77 } }, 400],
      [
        {
          mqttid: 'ha:x',
          profile: 'ha-json',
          address: 'x',
          site: 'Home',
          ha: { triggers: [{ event: 'e' }] },
        },
        400,
      ],
      ...[
        { onCommand: 'sometimes', commandTopic: 'x/b' },
        { stateTopic: 'x/b' },
        { commandTopic: 'x/#' },
      ].map((brightness): [unknown, number] => [
        {
          mqttid: 'ha:x',
          profile: 'ha-json',
          address: 'x',
          site: 'Home',
          ha: { commandTopic: 'x/set', brightness },
        },
        400,
      ]),
      [{ mqttid: 'tasmota:x', profile: 'tasmota', address: 'a/+', site: 'Home' }, 400],
      [{ mqttid: 'tasmota:x', site: 'Home', kind: 'lamp' }, 400],
      [{ mqttid: 'tasmota:x', site: 'Atlantis' }, 404],
      [{ mqttid: 'tasmota:x', site: 'Home', colour: 'red' }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await h.t.admin('POST', '/admin/mqtt/devices', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((res.body as Json).message).toEqual(expect.any(String));
    }
    const id = encodeURIComponent('tasmota:hall');
    expect((await h.t.admin('PATCH', `/admin/mqtt/devices/${id}`, { new: true })).status).toBe(400);
    expect((await h.t.admin('PATCH', `/admin/mqtt/devices/${id}`, { site: 'Atlantis' })).status).toBe(404);
    expect((await h.t.admin('DELETE', '/admin/mqtt/devices/tasmota%3Anone')).status).toBe(404);
    const list = (await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[];
    expect(list.map((d) => d.mqttid)).toEqual(['tasmota:hall']);

    // Moving to another site, then forgetting it.
    const cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as Json;
    const moved = await h.t.admin('PATCH', `/admin/mqtt/devices/${id}`, { site: 'Cabin', name: 'Hall lamp' });
    expect(moved.body).toMatchObject({ site: cabin.siteid, name: 'Hall lamp' });
    expect((await h.t.admin('DELETE', `/admin/mqtt/devices/${id}`)).status).toBe(204);
    expect((await h.t.admin('GET', '/admin/mqtt/devices')).body).toEqual([]);
  });
});
