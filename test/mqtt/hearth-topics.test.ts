/**
 * Hearth's own topics through the real hub: retained light state, commands in on .../set (never a
 * retained command out), garbage commands dropped, the generic sensor topic running a bound action, sensor actions out, a wall
 * switch press reaching a bulb, and Home Assistant discovery for Hearth's lights when enabled.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { startTasmotaBulb, type TasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt, type Zigbee2mqttSim } from '../../scripts/simulators/zigbee2mqtt.ts';
import { retainedUnder } from './fixtures.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

describe('hearth/<site>/ topics', () => {
  let h: MqttHub;
  let bulb: TasmotaBulb | null = null;
  let z2m: Zigbee2mqttSim | null = null;
  let client: MqttClient | null = null;
  afterEach(async () => {
    await client?.endAsync();
    await bulb?.stop();
    await z2m?.stop();
    client = bulb = z2m = null;
    await h.stop();
  });

  async function watch(filter: string) {
    client = await mqtt.connectAsync(h.t.mqttUrl, { username: 'node-red', password: h.sitekey });
    const seen: Array<{ topic: string; payload: string; retain: boolean }> = [];
    client.on('message', (topic, p, packet) =>
      seen.push({ topic, payload: p.toString(), retain: packet.retain }),
    );
    await client.subscribeAsync(filter);
    return seen;
  }

  it('publishes retained state and takes commands on .../set', async () => {
    h = await startMqttHub();
    const password = await h.credential('bulb');
    bulb = await startTasmotaBulb({ url: h.t.mqttUrl, topic: 'lamp', username: 'bulb', password });
    const light = (
      await h.site('POST', '/light', {
        name: 'Lamp',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'tasmota:lamp',
      })
    ).body;
    // Hearth's topics name the light by its lighting _id, whatever its vendor.
    const base = `hearth/${h.siteid}/light/${light._id}`;
    const seen = await watch(`hearth/${h.siteid}/#`);
    // {"on","bri"} and Home Assistant's {"state","brightness"} are both accepted.
    await client!.publishAsync(`${base}/set`, JSON.stringify({ on: true, bri: 51 }));
    await eventually(() => bulb!.dimmer === 20 && bulb!.power, 'the bulb at 20 %');
    await eventually(
      () => seen.find((m) => m.topic === `${base}/state` && JSON.parse(m.payload).bri === 51),
      'state',
    );
    await client!.publishAsync(`${base}/set`, JSON.stringify({ state: 'OFF' }));
    await eventually(() => !bulb!.power, 'off');
    // The hub publishes the new state once the bulb has reported it, a moment after the bulb switched.
    await eventually(
      () => seen.find((m) => m.topic === `${base}/state` && JSON.parse(m.payload).on === false),
      'the off state',
    );
    // Garbage is ignored; the device is untouched and the bus stays up.
    await client!.publishAsync(`${base}/set`, 'not json');
    await client!.publishAsync(`${base}/set`, JSON.stringify({ on: true, bri: 999 }));
    await client!.publishAsync(`${base}/set`, JSON.stringify({ on: 'yes' }));
    const late = await mqtt.connectAsync(h.t.mqttUrl, { username: 'late', password: h.sitekey });
    const retained: Json[] = [];
    late.on('message', (topic, p, packet) =>
      retained.push({ topic, payload: p.toString(), retain: packet.retain }),
    );
    await late.subscribeAsync(`${base}/state`);
    const state = await eventually(() => retained[0], 'the retained state');
    await late.endAsync();
    expect(state.retain).toBe(true);
    expect(JSON.parse(state.payload)).toEqual({ state: 'OFF', brightness: 0, on: false, bri: 0 });
    expect(bulb.power).toBe(false);
    // Commands reached the bulb and none stayed retained (a late subscriber would see it).
    const device = { username: 'late-device', password: await h.credential('late-device') };
    expect(await retainedUnder(h.t.mqttUrl, 'cmnd/#', 'cmnd/sentinel/x', device)).toEqual([]);
  });

  it('a wall switch press runs its bound action on a bulb; the event goes out on .../action', async () => {
    h = await startMqttHub();
    z2m = await startZigbee2mqtt({
      url: h.t.mqttUrl,
      username: 'z2m',
      password: await h.credential('z2m', ['zigbee2mqtt/#']),
      devices: [
        { name: 'desk', type: 'bulb' },
        { name: 'wall', type: 'switch' },
      ],
    });
    // Both arrive by discovery as a light and a sensor of the site.
    const light = await eventually(
      async () =>
        ((await h.site('GET', '/light')).body as Json[]).find((l) => l.mqttid === 'zigbee2mqtt:desk'),
      'the discovered bulb',
    );
    const sensor = await eventually(
      async () =>
        ((await h.site('GET', '/sensor')).body as Json[]).find((s) => s.mqttid === 'zigbee2mqtt:wall'),
      'the discovered switch',
    );
    expect(
      (
        await h.site('POST', '/sensor/action', {
          _id: sensor._id,
          event: 'on',
          action: { type: 'light', _id: light._id, on: true, bri: 255 },
        })
      ).status,
    ).toBe(201);
    const seen = await watch(`hearth/${h.siteid}/sensor/+/action`);
    await eventually(
      async () => ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[]).length === 2 || undefined,
      'discovery',
    );
    await z2m.press('wall', 'on');
    await eventually(() => z2m!.bulb('desk').state === 'ON', 'the bulb on');
    expect(z2m.bulb('desk').brightness).toBe(254);
    await eventually(
      () => seen.find((m) => m.topic.endsWith(`/sensor/${sensor._id}/action`) && m.payload === 'on'),
      'action out',
    );
    // Events are not retained: a late subscriber gets none.
    const sensors = `hearth/${h.siteid}/sensor/`;
    const late = { username: 'late', password: h.sitekey };
    expect(await retainedUnder(h.t.mqttUrl, `${sensors}#`, `${sensors}sentinel/x`, late)).toEqual([]);
  });

  it('the generic sensor topic posts {"event"} to a lighting sensor; bad events are dropped', async () => {
    h = await startMqttHub();
    bulb = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'hall',
      username: 'hall',
      password: await h.credential('hall'),
    });
    const light = (
      await h.site('POST', '/light', {
        name: 'Hall',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'tasmota:hall',
      })
    ).body;
    const sensor = (
      await h.site('POST', '/sensor', {
        name: 'ESP32 button',
        vendor: 'esp32',
        esp32id: 'btn-1',
        type: 'button',
        events: ['1'],
      })
    ).body;
    await h.site('POST', '/sensor/action', {
      _id: sensor._id,
      event: '1',
      action: { type: 'light', _id: light._id, on: true, bri: 128 },
    });
    const esp = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'esp32',
      password: await h.credential('esp32', ['esp32/#']),
    });
    try {
      const topic = `hearth/${h.siteid}/sensor/${sensor._id}/event`;
      await esp.publishAsync(topic, '{"event": 7}');
      await esp.publishAsync(topic, 'x'.repeat(5000));
      await esp.publishAsync(topic, JSON.stringify({ event: '1' }));
      await eventually(() => bulb!.dimmer === 50 && bulb!.power, 'the bound action');
      const events = (await h.site('GET', '/sensor/event')).body as Json[];
      expect(events.map((e) => e.event)).toEqual(['1']);
    } finally {
      await esp.endAsync();
    }
  });

  it('announces Hearth lights to Home Assistant when enabled, on Hearth topics, without adopting them', async () => {
    h = await startMqttHub({ plugins: { 'mqtt-devices': { publishHomeAssistant: true } } });
    await h.t.admin('POST', '/admin/mqtt/devices', { mqttid: 'tasmota:den', site: h.siteid, name: 'Den' });
    const light = (
      await h.site('POST', '/light', { name: 'Den', type: 'dimmable', vendor: 'mqtt', mqttid: 'tasmota:den' })
    ).body;
    bulb = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'den',
      username: 'den',
      password: await h.credential('den'),
    });
    const ha = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'ha',
      password: await h.credential('ha', ['homeassistant/#']),
    });
    try {
      const configs: Json[] = [];
      ha.on('message', (topic, p) => configs.push({ topic, body: JSON.parse(p.toString()) }));
      await ha.subscribeAsync('homeassistant/light/#');
      const c = await eventually(() => configs.find((x) => x.body.name === 'Den'), 'the HA config');
      expect(c.topic).toBe(`homeassistant/light/hearth_${h.siteid}/${light._id}/config`);
      expect(c.body).toMatchObject({
        schema: 'json',
        command_topic: `hearth/${h.siteid}/light/${light._id}/set`,
        state_topic: `hearth/${h.siteid}/light/${light._id}/state`,
        availability: [
          { topic: `hearth/${h.siteid}/status` },
          { topic: `hearth/${h.siteid}/light/${light._id}/availability` },
        ],
        brightness: true,
        brightness_scale: 255,
      });
      const devices = (await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[];
      expect(devices.map((d) => d.mqttid)).toEqual(['tasmota:den']);
    } finally {
      await ha.endAsync();
    }
  });
});
