import net from 'node:net';
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import type { MqttMessage } from '../../core/mqtt/types.ts';
import { connect, deferred, nextMessage, startEmbedded, type TestBroker } from './broker-fixtures.ts';

let running: TestBroker | undefined;
const clients: MqttClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  await running?.broker.stop();
  running = undefined;
});

async function start(...args: Parameters<typeof startEmbedded>) {
  running = await startEmbedded(...args);
  return running;
}

async function client(url: string, opts: Parameters<typeof connect>[1] = {}) {
  const c = await connect(url, opts);
  clients.push(c);
  return c;
}

describe('embedded broker: basics', () => {
  it('listens on an ephemeral port and accepts a real mqtt.js client', async () => {
    const { broker, url } = await start();
    expect(broker.mode).toBe('embedded');
    expect(broker.port).toBeGreaterThan(0);
    const c = await client(url);
    expect(c.connected).toBe(true);
  });

  it('delivers a socket publish to an in-process wildcard subscriber', async () => {
    const { broker, url } = await start();
    const api = broker.forOwner('lighting');
    const got = deferred<MqttMessage>();
    await api.subscribe('zigbee2mqtt/+/state', (msg) => got.resolve(msg));
    const c = await client(url);
    await c.publishAsync('zigbee2mqtt/lamp/state', '{"state":"ON"}');
    const msg = await got.promise;
    expect(msg.topic).toBe('zigbee2mqtt/lamp/state');
    expect(msg.payload.toString()).toBe('{"state":"ON"}');
    expect(msg.retain).toBe(false);
  });

  it('delivers an in-process publish to a socket subscriber', async () => {
    const { broker, url } = await start();
    const c = await client(url);
    await c.subscribeAsync('cmnd/#');
    const received = nextMessage(c, 'cmnd/bulb1/POWER');
    await broker.forOwner('lighting').publish('cmnd/bulb1/POWER', 'ON', { qos: 1 });
    expect((await received).payload).toBe('ON');
  });

  it('delivers between two socket clients', async () => {
    const { url } = await start();
    const sub = await client(url);
    const pub = await client(url);
    await sub.subscribeAsync('a/b');
    const received = nextMessage(sub, 'a/b');
    await pub.publishAsync('a/b', 'hello', { qos: 1 });
    expect((await received).payload).toBe('hello');
  });

  it('accepts client ids longer than 23 characters, as devices and Node-RED use', async () => {
    const { url } = await start();
    const c = await client(url, { clientId: `nodered_${'a'.repeat(56)}` });
    expect(c.connected).toBe(true);
  });

  it('closes a connection that sends garbage and keeps serving others', async () => {
    const { broker, url } = await start();
    const raw = net.connect(broker.port, '127.0.0.1');
    await new Promise((resolve) => raw.once('connect', resolve));
    const rawClosed = new Promise<void>((resolve) => raw.once('close', () => resolve()));
    raw.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x13, 0x37]));
    await rawClosed;
    const c = await client(url);
    expect(c.connected).toBe(true);
  });

  it('rejects invalid topics from plugins with a clear error', async () => {
    const { broker } = await start();
    const api = broker.forOwner('p');
    await expect(api.publish('a/#', 'x')).rejects.toThrow(/wildcards/);
    await expect(api.publish('', 'x')).rejects.toThrow(/empty/);
    await expect(api.subscribe('a/#/b', () => {})).rejects.toThrow(/'#'/);
    await expect(api.subscribe('a/b+', () => {})).rejects.toThrow(/'\+'/);
  });

  it('calls onConnect once at start for the embedded broker', async () => {
    const { broker } = await start();
    const called = deferred<void>();
    broker.forOwner('p').onConnect(() => called.resolve());
    await called.promise;
  });

  it('a throwing in-process handler does not stop delivery to other subscribers', async () => {
    const { broker, url } = await start();
    await broker.forOwner('bad').subscribe('t', () => {
      throw new Error('boom');
    });
    const got = deferred<string>();
    await broker.forOwner('good').subscribe('t', (m) => got.resolve(m.payload.toString()));
    const c = await client(url);
    await c.publishAsync('t', 'still delivered');
    expect(await got.promise).toBe('still delivered');
    expect(running?.lines.join('')).toContain('mqtt handler threw');
  });
});

describe('embedded broker: stop', () => {
  it('closes connected clients and half-open sockets, and frees the port', async () => {
    const { broker, url } = await start();
    const c = await client(url);
    const clientClosed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    // A socket that never sends CONNECT is not an aedes client yet; stop() must close it too.
    const raw = net.connect(broker.port, '127.0.0.1');
    await new Promise((resolve) => raw.once('connect', resolve));
    const rawClosed = new Promise<void>((resolve) => raw.once('close', () => resolve()));
    await broker.stop();
    await clientClosed;
    await rawClosed;
    const refused = await new Promise<string>((resolve) => {
      const probe = net.connect(broker.port, '127.0.0.1');
      probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? ''));
      probe.once('connect', () => {
        probe.destroy();
        resolve('connected');
      });
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('in-process calls after stop() reject with a clear error', async () => {
    const { broker } = await start();
    const api = broker.forOwner('late');
    await broker.stop();
    await expect(api.publish('a', 'b')).rejects.toThrow('mqtt: the broker has stopped');
    await expect(api.subscribe('a', () => {})).rejects.toThrow('mqtt: the broker has stopped');
  });

  it('starts no TCP listener with enabled: false, but in-process delivery works', async () => {
    const { broker } = await start({ enabled: false });
    expect(broker.port).toBe(0);
    const api = broker.forOwner('p');
    const got = deferred<string>();
    await api.subscribe('x/#', (m) => got.resolve(m.topic));
    await api.publish('x/y', '1');
    expect(await got.promise).toBe('x/y');
  });
});
