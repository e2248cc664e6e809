/**
 * An MQTT sensor made on the site API (no discovery, no registration) is watched at once: a sensor never
 * gets a command, so nothing else would ever subscribe to its topics. Its events reach lighting and run
 * the actions bound to it.
 */
import mqtt from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, type MqttHub, startMqttHub } from './hub.ts';

describe('MQTT devices made on the site API', () => {
  let h: MqttHub;
  let bridge: mqtt.MqttClient | null = null;
  beforeEach(async () => {
    h = await startMqttHub();
  });
  afterEach(async () => {
    await bridge?.endAsync(true);
    bridge = null;
    await h.stop();
  });

  it('a zigbee2mqtt button created as a sensor reports its actions and runs what is bound to them', async () => {
    const password = await h.credential('zigbee2mqtt', ['zigbee2mqtt/#']);
    bridge = await mqtt.connectAsync(h.t.mqttUrl, { username: 'zigbee2mqtt', password, reconnectPeriod: 0 });
    const lamp = await h.site('POST', '/light', {
      name: 'Lamp',
      type: 'dimmable',
      vendor: 'mqtt',
      mqttid: 'zigbee2mqtt:Lamp',
    });
    const sensor = await h.site('POST', '/sensor', {
      name: 'Hall switch',
      vendor: 'mqtt',
      mqttid: 'zigbee2mqtt:Hall switch',
      type: 'button',
      events: ['single'],
    });
    expect(sensor.status).toBe(201);
    const bound = await h.site('POST', '/sensor/action', {
      _id: sensor.body._id,
      event: 'single',
      action: { type: 'light', _id: lamp.body._id, on: true, bri: 200 },
    });
    expect(bound.status).toBe(201);

    const commands: string[] = [];
    await bridge.subscribeAsync('zigbee2mqtt/Lamp/set');
    bridge.on('message', (topic, payload) => {
      if (topic === 'zigbee2mqtt/Lamp/set') commands.push(payload.toString());
    });
    // The site's driver restarts to watch the new sensor; press until the press is seen.
    await eventually(async () => {
      await bridge!.publishAsync('zigbee2mqtt/Hall switch', JSON.stringify({ action: 'single' }));
      const events = (await h.site('GET', '/sensor/event')).body as Array<{ _id: string; event: string }>;
      return events.some((e) => e._id === sensor.body._id && e.event === 'single') ? true : undefined;
    }, 'the sensor event');
    await eventually(() => (commands.length > 0 ? true : undefined), 'the bound command to reach the lamp');
    expect(JSON.parse(commands[0]!)).toEqual({ state: 'ON', brightness: 199 });
  });
});
