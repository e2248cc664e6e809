import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createBroker } from '../../core/mqtt/broker.ts';
import type { BrokerOptions, BrokerService, MqttMessage } from '../../core/mqtt/types.ts';
import {
  captureLog,
  connect,
  deferred,
  MOSQUITTO,
  type Mosquitto,
  mosquitto,
  nextMessage,
} from './broker-fixtures.ts';

const haveMosquitto = existsSync(MOSQUITTO);
if (!haveMosquitto) {
  console.warn(`SKIPPED external-broker tests: ${MOSQUITTO} is absent (apt-get install -y mosquitto)`);
}

const USER = { username: 'hearth', password: 'mosq-Secret-42' };

describe('external broker mode: configuration', () => {
  it('refuses a malformed URL without repeating it (it may hold a password)', async () => {
    const { log } = captureLog();
    const attempt = createBroker({
      host: '127.0.0.1',
      port: 0,
      allowAnonymous: false,
      external: { url: 'mqtt://user:pa ss-Secret@[broken' },
      log,
    });
    await expect(attempt).rejects.toThrow('mqtt.external.url is not a valid URL');
    await expect(attempt).rejects.not.toThrow(/Secret/);
  });
});

// In CI (.ci/run installs mosquitto) a missing broker is a failure, not a skip.
describe.skipIf(!haveMosquitto && !process.env.CI)('external broker mode (Debian mosquitto)', () => {
  let mosq: Mosquitto;
  let service: BrokerService | undefined;
  let lines: string[] = [];
  let waitFor: (text: string) => Promise<void> = async () => {};
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    mosq = await mosquitto(USER);
  });
  afterAll(async () => {
    await mosq?.cleanup();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await service?.stop();
    service = undefined;
    await mosq.start(); // in case a failed restart test left it stopped
  });

  /** Our service pointed at mosquitto; resolves once its shared client is connected. */
  async function startExternal(password = USER.password) {
    const captured = captureLog();
    lines = captured.lines;
    waitFor = captured.waitFor;
    service = await createBroker({
      host: '127.0.0.1',
      port: 0,
      allowAnonymous: false,
      external: { url: mosq.url, username: USER.username, password },
      log: captured.log,
    });
    return service;
  }

  async function deviceClient() {
    const c = await connect(mosq.url, { ...USER });
    clients.push(c);
    return c;
  }

  function connected(api: ReturnType<BrokerService['forOwner']>) {
    const d = deferred<void>();
    api.onConnect(() => d.resolve());
    return d.promise;
  }

  it('publishes and subscribes through mosquitto with credentials', async () => {
    const svc = await startExternal();
    expect(svc.mode).toBe('external');
    expect(svc.port).toBe(0);
    const api = svc.forOwner('lighting');
    await connected(api);

    const fromDevice = deferred<MqttMessage>();
    await api.subscribe('tele/+/STATE', (m) => fromDevice.resolve(m));
    const device = await deviceClient();
    await device.publishAsync('tele/bulb1/STATE', '{"POWER":"ON"}', { qos: 1 });
    const msg = await fromDevice.promise;
    expect([msg.topic, msg.payload.toString(), msg.retain]).toEqual([
      'tele/bulb1/STATE',
      '{"POWER":"ON"}',
      false,
    ]);

    await device.subscribeAsync('cmnd/bulb1/POWER');
    const toDevice = nextMessage(device, 'cmnd/bulb1/POWER');
    await api.publish('cmnd/bulb1/POWER', 'OFF', { qos: 1 });
    expect((await toDevice).payload).toBe('OFF');
  });

  it('delivers retained state from mosquitto on subscribe, flagged retain=true', async () => {
    const device = await deviceClient();
    await device.publishAsync('stat/bulb2/POWER', 'ON', { qos: 1, retain: true });
    const api = (await startExternal()).forOwner('lighting');
    await connected(api);
    const got = deferred<MqttMessage>();
    await api.subscribe('stat/bulb2/#', (m) => got.resolve(m));
    const msg = await got.promise;
    expect([msg.payload.toString(), msg.retain]).toEqual(['ON', true]);
    await device.publishAsync('stat/bulb2/POWER', '', { qos: 1, retain: true }); // clear for other tests
  });

  it('reconnects after mosquitto restarts: onConnect runs again and subscriptions are restored', async () => {
    const api = (await startExternal()).forOwner('lighting');
    let connects = 0;
    const reconnected = deferred<void>();
    api.onConnect(() => {
      connects++;
      if (connects === 2) reconnected.resolve();
    });
    const received = deferred<string>();
    await api.subscribe('restart/+', (m) => received.resolve(m.payload.toString()));
    await new Promise<void>((resolve) => api.onConnect(resolve));

    await mosq.stop();
    await waitFor('external mqtt broker unreachable');
    // While mosquitto is down a QoS 0 publish fails fast instead of being replayed later.
    await expect(api.publish('restart/x', 'stale')).rejects.toThrow(/connection/i);
    await mosq.start();
    await reconnected.promise;

    const device = await deviceClient();
    await device.publishAsync('restart/after', 'still subscribed', { qos: 1 });
    expect(await received.promise).toBe('still subscribed');
    expect(connects).toBe(2);
  });

  it('dispose() unsubscribes the plugin from mosquitto', async () => {
    const svc = await startExternal();
    const plugin = svc.forOwner('lighting');
    const observer = svc.forOwner('observer');
    await connected(plugin);
    const seen: string[] = [];
    await plugin.subscribe('gone/#', (m) => seen.push(m.topic));
    const end = deferred<void>();
    await observer.subscribe('gone-end', () => end.resolve());
    await plugin.dispose();
    const device = await deviceClient();
    // One connection, so mosquitto delivers in order: when gone-end arrives, gone/1 would have too.
    await device.publishAsync('gone/1', 'x', { qos: 1 });
    await device.publishAsync('gone-end', 'x', { qos: 1 });
    await end.promise;
    expect(seen).toEqual([]);
  });

  it('hands each plugin one copy when their filters overlap on the shared client', async () => {
    const svc = await startExternal();
    const a = svc.forOwner('a');
    await connected(a);
    const wide: string[] = [];
    const narrow: string[] = [];
    await a.subscribe('overlap/#', (m) => wide.push(m.topic));
    await svc.forOwner('b').subscribe('overlap/x', (m) => narrow.push(m.topic));
    const end = deferred<void>();
    await svc.forOwner('c').subscribe('overlap-end', () => end.resolve());
    const device = await deviceClient();
    await device.publishAsync('overlap/x', '1', { qos: 1 });
    await device.publishAsync('overlap-end', '', { qos: 1 });
    await end.promise;
    expect(wide).toEqual(['overlap/x']);
    expect(narrow).toEqual(['overlap/x']);
  });

  it('keeps retrying with wrong credentials and never logs the password', async () => {
    const svc = await startExternal('wrong-Password-77');
    const api = svc.forOwner('p');
    await waitFor('Not authorized'); // mosquitto's CONNACK 5, as mqtt.js reports it
    expect(lines.join('')).not.toContain('wrong-Password-77');
    await expect(api.publish('x', 'y')).rejects.toThrow(/connection/i);
  });

  it('ignores hooks (mosquitto ACLs apply) and refuses MQTT over WebSocket', async () => {
    const svc = await startExternal();
    const api = svc.forOwner('auth');
    api.hooks({ authenticate: () => ({ allow: false }) });
    const device = await deviceClient();
    expect(device.connected).toBe(true);
    expect(lines.join('')).toContain('hooks are ignored with an external broker');

    // The hub has no broker of its own to serve /mqtt: the socket is closed with 1011.
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (socket) => svc.handleWebSocket(socket));
    await once(wss, 'listening');
    const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mqtt`);
    const [code] = (await once(ws, 'close')) as [number];
    expect(code).toBe(1011);
    await new Promise((resolve) => wss.close(resolve));
  });
});

// In CI (.ci/run installs mosquitto) a missing broker is a failure, not a skip.
describe.skipIf(!haveMosquitto && !process.env.CI)('external broker mode over TLS (mqtts://)', () => {
  const tlsDir = fileURLToPath(new URL('./broker-tls/', import.meta.url));
  let mosq: Mosquitto;
  let service: BrokerService | undefined;

  beforeAll(async () => {
    mosq = await mosquitto(USER, { certfile: `${tlsDir}server.pem`, keyfile: `${tlsDir}server.key` });
  });
  afterAll(async () => {
    await mosq?.cleanup();
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  async function startTls(external: Partial<NonNullable<BrokerOptions['external']>>) {
    const captured = captureLog();
    service = await createBroker({
      host: '127.0.0.1',
      port: 0,
      allowAnonymous: false,
      external: { url: mosq.url, ...USER, ...external },
      log: captured.log,
    });
    return { api: service.forOwner('p'), ...captured };
  }

  it('trusts the broker through caFile and exchanges messages', async () => {
    const { api } = await startTls({ caFile: `${tlsDir}ca.pem` });
    await new Promise<void>((resolve) => api.onConnect(resolve));
    const got = deferred<string>();
    await api.subscribe('tls/echo', (m) => got.resolve(m.payload.toString()));
    await api.publish('tls/echo', 'over tls', { qos: 1 });
    expect(await got.promise).toBe('over tls');
  });

  it('refuses a certificate it cannot verify, unless rejectUnauthorized is false', async () => {
    const strict = await startTls({});
    await strict.waitFor('unable to verify the first certificate');
    await expect(strict.api.publish('x', 'y')).rejects.toThrow(/connection/i);
    await service?.stop();

    const lax = await startTls({ rejectUnauthorized: false });
    await new Promise<void>((resolve) => lax.api.onConnect(resolve));
  });
});
