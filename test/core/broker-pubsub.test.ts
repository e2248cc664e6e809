import net from 'node:net';
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MqttMessage } from '../../core/mqtt/types.ts';
import { connect, deferred, nextMessage, startEmbedded, type TestBroker } from './broker-fixtures.ts';

let running: TestBroker | undefined;
const clients: MqttClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  await running?.broker.stop();
  running = undefined;
});

async function start() {
  running = await startEmbedded();
  return running;
}

async function client(url: string) {
  const c = await connect(url);
  clients.push(c);
  return c;
}

/** Collects messages until one arrives on `marker`; publishing the marker last proves nothing else is due. */
function collectUntil(marker: string) {
  const seen: MqttMessage[] = [];
  const done = deferred<MqttMessage[]>();
  const handler = (m: MqttMessage) => (m.topic === marker ? done.resolve(seen) : seen.push(m));
  return { handler, done: done.promise };
}

describe('embedded broker: retained messages', () => {
  it('gives a socket subscriber the state a plugin retained before it subscribed', async () => {
    const { broker, url } = await start();
    await broker
      .forOwner('lighting')
      .publish('hearth/light/1/state', '{"on":true}', { retain: true, qos: 1 });
    const c = await client(url);
    const got = nextMessage(c, 'hearth/light/1/state');
    await c.subscribeAsync('hearth/light/+/state');
    expect(await got).toEqual({ payload: '{"on":true}', retain: true });
  });

  it('gives an in-process subscriber what a device retained, flagged retain=true, then live with retain=false', async () => {
    const { broker, url } = await start();
    const device = await client(url);
    await device.publishAsync('zigbee2mqtt/bridge/state', 'online', { retain: true, qos: 1 });
    const messages: MqttMessage[] = [];
    const second = deferred<void>();
    await broker.forOwner('lighting').subscribe('zigbee2mqtt/bridge/#', (m) => {
      messages.push(m);
      if (messages.length === 2) second.resolve();
    });
    await device.publishAsync('zigbee2mqtt/bridge/state', 'offline', { retain: true, qos: 1 });
    await second.promise;
    expect(messages.map((m) => [m.payload.toString(), m.retain])).toEqual([
      ['online', true],
      ['offline', false],
    ]);
  });

  it('an empty retained payload clears the retained message', async () => {
    const { broker, url } = await start();
    const api = broker.forOwner('p');
    await api.publish('r/a', 'old', { retain: true });
    await api.publish('r/a', '', { retain: true }); // MQTT 3.1.1 §3.3.1.3 [MQTT-3.3.1-10]
    await api.publish('r/b', 'kept', { retain: true });
    const c = await client(url);
    const got = nextMessage(c, 'r/b');
    const seen: string[] = [];
    c.on('message', (t) => seen.push(t));
    await c.subscribeAsync('r/#');
    await got;
    expect(seen).toEqual(['r/b']);
  });

  it('a `#` subscription does not receive $SYS topics [MQTT-4.7.2-1]', async () => {
    const { broker, url } = await start();
    const { handler, done } = collectUntil('end');
    await broker.forOwner('p').subscribe('#', handler);
    // aedes announces every new client on $SYS/<id>/new/clients; an explicit `$SYS/#` filter does see it.
    const announced = deferred<void>();
    await broker.forOwner('sys').subscribe('$SYS/+/new/clients', () => announced.resolve());
    await client(url);
    await announced.promise;
    await broker.forOwner('q').publish('end', '');
    expect((await done).filter((m) => m.topic.startsWith('$'))).toEqual([]);
  });
});

describe('embedded broker: last will', () => {
  it('publishes the will of a device that drops off, subject to the ACL hooks', async () => {
    const { broker, url } = await start();
    broker.forOwner('acl').hooks({
      authorizePublish: (_c, topic) => (topic.startsWith('forbidden/') ? 'deny' : 'pass'),
    });
    const got: MqttMessage[] = [];
    const last = deferred<void>();
    await broker.forOwner('lighting').subscribe('+/bulb/availability', (m) => {
      got.push(m);
      if (m.topic === 'allowed/bulb/availability') last.resolve();
    });
    const will = (topic: string) => ({
      will: { topic, payload: Buffer.from('offline'), qos: 0 as const, retain: false },
    });
    // aedes announces a disconnect on $SYS after it has dealt with the client's will.
    const gone = new Map<string, () => void>();
    await broker
      .forOwner('sys')
      .subscribe('$SYS/+/disconnect/clients', (m) => gone.get(m.payload.toString())?.());
    const denied = await connect(url, { clientId: 'denied-bulb', ...will('forbidden/bulb/availability') });
    const allowed = await connect(url, will('allowed/bulb/availability'));
    const deniedGone = new Promise<void>((resolve) => gone.set('denied-bulb', resolve));
    // An ungraceful drop (no DISCONNECT) makes the broker publish the will [MQTT-3.1.2-8].
    denied.stream.destroy();
    await deniedGone;
    allowed.stream.destroy();
    await last.promise;
    expect(got.map((m) => [m.topic, m.payload.toString()])).toEqual([
      ['allowed/bulb/availability', 'offline'],
    ]);
  });
});

describe('embedded broker: owners and dispose', () => {
  it('unsubscribe() stops one handler; dispose() removes the rest of that plugin', async () => {
    const { broker, url } = await start();
    const plugin = broker.forOwner('lighting');
    const a: string[] = [];
    const b: string[] = [];
    const unsubscribeA = await plugin.subscribe('t/#', (m) => a.push(m.topic));
    await plugin.subscribe('t/#', (m) => b.push(m.topic));
    // Another plugin subscribed after them: once it has a message, the earlier handlers had their turn.
    const waiters = new Map<string, () => void>();
    await broker.forOwner('observer').subscribe('t/#', (m) => waiters.get(m.topic)?.());
    const c = await client(url);
    const publishAndSettle = async (topic: string) => {
      const seen = new Promise<void>((resolve) => waiters.set(topic, resolve));
      await c.publishAsync(topic, 'x');
      await seen;
    };

    await publishAndSettle('t/1');
    await unsubscribeA();
    await publishAndSettle('t/2');
    await plugin.dispose();
    await publishAndSettle('t/3');
    expect(a).toEqual(['t/1']);
    expect(b).toEqual(['t/1', 't/2']);
  });

  it('dispose() removes the plugin hooks: a client it denied may connect afterwards', async () => {
    const { broker, url } = await start();
    const gate = broker.forOwner('gate');
    gate.hooks({ authenticate: () => ({ allow: false }) });
    await expect(connect(url)).rejects.toMatchObject({ code: 5 });
    await gate.dispose();
    const c = await client(url);
    expect(c.connected).toBe(true);
  });

  it('a disposed API refuses new subscriptions, hooks and onConnect handlers', async () => {
    const { broker } = await start();
    const api = broker.forOwner('gone');
    await api.dispose();
    await expect(api.subscribe('a', () => {})).rejects.toThrow(/after plugin 'gone' stopped/);
    expect(() => api.hooks({})).toThrow(/stopped/);
    expect(() => api.onConnect(() => {})).toThrow(/stopped/);
  });
});

describe('embedded broker: in-process QoS 0 publishes', () => {
  it('settle once the broker has the message, not an event-loop turn later (a light command waits on it)', async () => {
    const { broker, url } = await start();
    const device = await client(url);
    await device.subscribeAsync('zigbee2mqtt/desk/set');
    const received = nextMessage(device, 'zigbee2mqtt/desk/set');
    let turnPassed = false;
    setImmediate(() => {
      turnPassed = true;
    });
    await broker.forOwner('mqtt-devices').publish('zigbee2mqtt/desk/set', '{"state":"ON"}');
    // aedes calls back only after its socket write's setImmediate; QoS 0 has nothing to wait for.
    expect(turnPassed).toBe(false);
    expect(await received).toEqual({ payload: '{"state":"ON"}', retain: false });
  });

  it('a retained publish still settles only once the broker has stored it', async () => {
    const { broker } = await start();
    const api = broker.forOwner('p');
    await api.publish('hearth/s/status', 'online', { retain: true });
    expect((await api.retained('hearth/s/status')).map((m) => m.payload.toString())).toEqual(['online']);
  });
});

describe('embedded broker: TCP connections', () => {
  it('turn Nagle off, so a batch of deliveries does not wait for the subscriber’s delayed ACK', async () => {
    const noDelay = vi.spyOn(net.Socket.prototype, 'setNoDelay');
    try {
      const { url } = await start();
      const subscriber = await client(url);
      const local = (subscriber.stream as net.Socket).localPort;
      // The broker's end of this connection is the socket whose remote port is the client's local port.
      const brokerEnd = noDelay.mock.contexts.findIndex((s) => (s as net.Socket).remotePort === local);
      expect(brokerEnd).toBeGreaterThanOrEqual(0);
      expect(noDelay.mock.calls[brokerEnd]?.[0] ?? true).toBe(true);
    } finally {
      noDelay.mockRestore();
    }
  });
});
