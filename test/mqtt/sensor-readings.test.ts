/**
 * MQTT sensors report the same readings as Zigbee ones (docs/mqtt-devices.md#sensor-readings): a
 * zigbee2mqtt sensor's state JSON, Tasmota's SENSOR telemetry, Shelly Gen1 sensor topics and Gen2
 * component statuses, published by real mqtt.js clients with their own credentials to the hub's broker,
 * end up as the sensor's readings in the site API; a condition on one of them gates an action.
 */
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { deviceFromProtocolId } from '../../drivers/mqtt/device.ts';
import { profiles } from '../../drivers/mqtt/profiles/index.ts';
import { SiteSocket } from '../lighting/ws-client.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const readingsOf = async (hub: MqttHub, id: string) =>
  (((await hub.site('GET', '/sensor')).body as Json[]).find((s) => s._id === id)?.readings ?? {}) as Json;

describe('MQTT sensor readings', () => {
  it('Shelly Gen2 component statuses as readings (the profile on its own)', () => {
    const d = {
      ...deviceFromProtocolId('shelly2:plusht', { zigbee2mqttBase: 'zigbee2mqtt' })!,
      kind: 'sensor' as const,
    };
    const parse = (topic: string, body: unknown) =>
      profiles.shelly2.parse(d, topic, Buffer.from(JSON.stringify(body)));
    expect(profiles.shelly2.topics(d)).toContain('plusht/status/temperature:0');
    expect(parse('plusht/status/temperature:0', { id: 0, tC: 18.5, tF: 65.3 })).toEqual([
      { type: 'readings', readings: { temperature: 18.5 } },
    ]);
    expect(parse('plusht/status/devicepower:0', { id: 0, battery: { V: 5.9, percent: 98 } })).toEqual([
      { type: 'readings', readings: { battery: 98, voltage: 5900 } },
    ]);
    expect(parse('plusht/status/humidity:0', { id: 0, rh: 'x' })).toEqual([]);
  });

  it('zigbee2mqtt, Tasmota and Shelly sensors report temperature, humidity, pressure, illuminance and battery', async () => {
    h = await startMqttHub();
    const hub = h;
    const sensor = async (name: string, mqttid: string) =>
      (await hub.site('POST', '/sensor', { name, vendor: 'mqtt', mqttid, type: 'climate' })).body;
    const z2m = await sensor('Aqara weather', 'zigbee2mqtt:weather');
    const tasmota = await sensor('Tasmota BME280', 'tasmota:bme');
    const gen1 = await sensor('Shelly H&T', 'shelly1:shellyht-1');
    // Each device with its own credential, scoped to its own topics.
    const connect = async (username: string, topics: string[]) =>
      mqtt.connectAsync(hub.t.mqttUrl, { username, password: await hub.credential(username, topics) });
    const bridge = await connect('zigbee2mqtt', ['zigbee2mqtt/#']);
    const bme = await connect('bme', ['tele/bme/#']);
    const ht1 = await connect('shellyht-1', ['shellies/shellyht-1/#']);
    try {
      await bridge.publishAsync(
        'zigbee2mqtt/weather',
        JSON.stringify({
          temperature: 21.4,
          humidity: 40.5,
          pressure: 1002.1,
          battery: 91,
          voltage: 3005,
          linkquality: 87,
        }),
      );
      await bme.publishAsync(
        'tele/bme/SENSOR',
        JSON.stringify({
          Time: '2026-11-28T10:00:00',
          BME280: { Temperature: 71.6, Humidity: 35, Pressure: 1011.3 },
          TempUnit: 'F',
        }),
      );
      await ht1.publishAsync('shellies/shellyht-1/sensor/temperature', '19.25');
      await ht1.publishAsync('shellies/shellyht-1/sensor/humidity', '55');
      await ht1.publishAsync('shellies/shellyht-1/sensor/battery', '12');
      await eventually(async () => (await readingsOf(hub, gen1._id)).battery === 12, 'all readings');
      expect(await readingsOf(hub, z2m._id)).toMatchObject({
        temperature: 21.4,
        humidity: 40.5,
        pressure: 1002.1,
        battery: 91,
        voltage: 3005,
        linkquality: 87,
      });
      expect(await readingsOf(hub, tasmota._id)).toMatchObject({
        temperature: 22,
        humidity: 35,
        pressure: 1011.3,
      });
      expect(await readingsOf(hub, gen1._id)).toMatchObject({
        temperature: 19.25,
        humidity: 55,
        battery: 12,
      });
      const warned = ((await hub.site('GET', '/sensor')).body as Json[]).find((s) => s._id === gen1._id);
      expect(warned.warnings).toEqual(['low_battery']);
    } finally {
      for (const c of [bridge, bme, ht1]) await c.endAsync();
    }
  });

  it("a Shelly Gen2 device's status topics from its own credential reach the hub as readings", async () => {
    h = await startMqttHub();
    const hub = h;
    const ht = (
      await hub.site('POST', '/sensor', {
        name: 'Shelly Plus H&T',
        vendor: 'mqtt',
        mqttid: 'shelly2:shellyplusht-1',
        type: 'climate',
      })
    ).body;
    // As the device connects: its own credential, scoped to its topic prefix, subscribed to its RPC topic.
    const device = await mqtt.connectAsync(hub.t.mqttUrl, {
      username: 'shellyplusht-1',
      password: await hub.credential('shellyplusht-1', ['shellyplusht-1/#']),
    });
    try {
      const granted = await device.subscribeAsync('shellyplusht-1/rpc');
      expect(granted[0]?.qos).not.toBe(128);
      await device.publishAsync('shellyplusht-1/online', 'true', { qos: 1 });
      await device.publishAsync(
        'shellyplusht-1/status/temperature:0',
        JSON.stringify({ id: 0, tC: 18.5, tF: 65.3 }),
        { qos: 1 },
      );
      await device.publishAsync('shellyplusht-1/status/humidity:0', JSON.stringify({ id: 0, rh: 61.2 }), {
        qos: 1,
      });
      await device.publishAsync(
        'shellyplusht-1/status/devicepower:0',
        JSON.stringify({ id: 0, battery: { V: 5.9, percent: 98 }, external: { present: false } }),
        { qos: 1 },
      );
      await eventually(async () => (await readingsOf(hub, ht._id)).battery === 98, 'Gen2 readings');
      expect(await readingsOf(hub, ht._id)).toMatchObject({
        temperature: 18.5,
        humidity: 61.2,
        battery: 98,
        voltage: 5900,
      });
      expect(device.connected).toBe(true);

      // Another device's credential (scoped to zigbee2mqtt's topics) is refused there: its connection closes.
      const other = await mqtt.connectAsync(hub.t.mqttUrl, {
        username: 'zigbee2mqtt',
        password: await hub.credential('zigbee2mqtt', ['zigbee2mqtt/#']),
        reconnectPeriod: 0,
      });
      const closed = new Promise<void>((resolve) => other.once('close', () => resolve()));
      other.publish('shellyplusht-1/status/temperature:0', JSON.stringify({ id: 0, tC: -40 }));
      await closed;
      await other.endAsync();
      expect((await readingsOf(hub, ht._id)).temperature).toBe(18.5);
    } finally {
      await device.endAsync();
    }
  });

  it("a zigbee2mqtt motion sensor's action only when its illuminance is low", async () => {
    h = await startMqttHub();
    const hub = h;
    const motion = (
      await hub.site('POST', '/sensor', {
        name: 'Hall',
        vendor: 'mqtt',
        mqttid: 'zigbee2mqtt:hall',
        type: 'button',
      })
    ).body;
    const client = await mqtt.connectAsync(hub.t.mqttUrl, {
      username: 'zigbee2mqtt',
      password: await hub.credential('zigbee2mqtt', ['zigbee2mqtt/#']),
    });
    try {
      const scene = (await hub.site('POST', '/scene', { name: 'Night', state: [] })).body;
      await hub.site('POST', '/sensor/action', {
        _id: motion._id,
        event: 'motion',
        action: { type: 'scene', _id: scene._id },
        when: { illuminance: { below: 30 } },
      });
      const ws = await SiteSocket.open(`${hub.t.url}/api/site/${hub.sitekey}/ws`);
      await client.publishAsync(
        'zigbee2mqtt/hall',
        JSON.stringify({ action: 'motion', illuminance_lux: 200, illuminance: 23011 }),
      );
      await eventually(async () => (await readingsOf(hub, motion._id)).illuminance === 200, 'bright reading');
      await client.publishAsync(
        'zigbee2mqtt/hall',
        JSON.stringify({ action: 'motion', illuminance_lux: 12 }),
      );
      await ws.next('sceneApplied', (x) => x._id === scene._id);
      const events = ((await hub.site('GET', '/sensor/event')).body as Json[]).filter(
        (e) => e._id === motion._id,
      );
      expect(events).toHaveLength(2);
      expect(ws.messages.filter((m) => m.command === 'sceneApplied')).toHaveLength(1);
      await ws.close();
    } finally {
      await client.endAsync();
    }
  });
});
