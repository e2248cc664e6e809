import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MqttMessage } from '../../core/mqtt/types.ts';
import { definePlugin } from '../../core/plugin/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { closed, connect, nextMessage, refusalCode } from './broker-fixtures.ts';

const DEVICE = { username: 'bulb-7', password: 'hub-Secret-9f3' };

/** A plugin that authenticates one device, limits it to its own topics and echoes its commands. */
function devicePlugin(received: MqttMessage[]) {
  return definePlugin({
    name: 'mqtt-probe',
    version: '1.0.0',
    description: 'test plugin: MQTT hooks and in-process pub/sub through the real hub',
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      ctx.mqtt.hooks({
        authenticate: (_c, username, password) =>
          username === DEVICE.username && password?.toString() === DEVICE.password
            ? { allow: true, identity: { device: 7 } }
            : { allow: false },
        authorizePublish: (c, topic) => (topic.startsWith(`dev/${c.identity?.device}/`) ? 'allow' : 'deny'),
      });
      await ctx.mqtt.subscribe('dev/+/state', (msg) => {
        received.push(msg);
        void ctx.mqtt.publish(msg.topic.replace(/state$/, 'ack'), msg.payload);
      });
      return { stop() {} };
    },
  });
}

describe('broker inside the real hub', () => {
  let hub: TestHub;
  const received: MqttMessage[] = [];
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    hub = await startTestHub({
      extraPlugins: [devicePlugin(received)],
      config: { mqtt: { allowAnonymous: false } },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await hub?.stop();
  });

  async function device(url: string) {
    const c = await connect(url, DEVICE);
    clients.push(c);
    return c;
  }

  it('a device on the TCP port reaches the plugin, which answers in-process', async () => {
    const c = await device(hub.mqttUrl);
    await c.subscribeAsync('dev/7/ack');
    const ack = nextMessage(c, 'dev/7/ack');
    await c.publishAsync('dev/7/state', 'on');
    expect((await ack).payload).toBe('on');
    expect(received.at(-1)?.topic).toBe('dev/7/state');
  });

  it('MQTT over WebSocket at /mqtt on the main listener goes through the same hooks', async () => {
    const wsUrl = `${hub.url.replace(/^http/, 'ws').replace(/\/$/, '')}/mqtt`;
    expect(await refusalCode(wsUrl, { username: DEVICE.username, password: 'wrong' })).toBe(4);
    const c = await device(wsUrl);
    await c.subscribeAsync('dev/7/ack');
    const ack = nextMessage(c, 'dev/7/ack');
    await c.publishAsync('dev/7/state', 'off');
    expect((await ack).payload).toBe('off');
  });

  it('/mqtt carries packets of 256 KiB both ways (a large retained bridge/devices), like TCP', async () => {
    const wsUrl = `${hub.url.replace(/^http/, 'ws').replace(/\/$/, '')}/mqtt`;
    const c = await device(wsUrl);
    const big = Buffer.alloc(256 * 1024, 0x61);
    await c.subscribeAsync('dev/7/ack');
    const ack = new Promise<Buffer>((resolve) => c.once('message', (_t, payload) => resolve(payload)));
    // In: the device publishes 256 KiB; out: the plugin echoes it back through the broker.
    await c.publishAsync('dev/7/state', big, { qos: 1 });
    expect(received.at(-1)?.payload.length).toBe(big.length);
    expect((await ack).equals(big)).toBe(true);
    expect(c.connected).toBe(true);
  });

  it('/mqtt closes a client whose packet exceeds mqtt.maxPacketSize, with a warning in the log', async () => {
    const wsUrl = `${hub.url.replace(/^http/, 'ws').replace(/\/$/, '')}/mqtt`;
    const c = await device(wsUrl);
    const gone = closed(c);
    c.publish('dev/7/state', Buffer.alloc(1024 * 1024 + 1), { qos: 1 });
    await gone;
    const warnings = hub.logs.filter((l) => (l as { level?: number }).level === 40);
    expect(JSON.stringify(warnings)).toMatch(/too large|limit exceeded/);
  });

  it('refuses bad credentials and anonymous clients, and enforces the plugin ACL', async () => {
    expect(await refusalCode(hub.mqttUrl, { username: DEVICE.username, password: 'nope' })).toBe(4);
    expect(await refusalCode(hub.mqttUrl)).toBe(5);
    const c = await device(hub.mqttUrl);
    const gone = closed(c);
    c.publish('dev/8/state', 'not mine');
    await gone;
    expect(received.map((m) => m.topic)).not.toContain('dev/8/state');
  });

  it('keeps device passwords out of the hub log', async () => {
    expect(hub.logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(hub.logs)).not.toContain(DEVICE.password);
  });
});
