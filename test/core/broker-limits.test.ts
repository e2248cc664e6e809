/**
 * The embedded broker under abuse: oversized packets (announced or sent), unauthenticated crowds,
 * connections that never send CONNECT, and a subscriber that stops reading while others keep talking.
 */
import { once } from 'node:events';
import net from 'node:net';
import type { MqttClient } from 'mqtt';
import mqttPacket from 'mqtt-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { closed, connect, startEmbedded, type TestBroker } from './broker-fixtures.ts';

let running: TestBroker | undefined;
const clients: MqttClient[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
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

/** A raw TCP connection to the broker, for what no well-behaved client library would send. */
async function rawSocket(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  await once(socket, 'connect');
  return socket;
}

const packet = (p: Record<string, unknown>) => mqttPacket.generate(p as unknown as mqttPacket.Packet);
const connectPacket = (extra: Record<string, unknown> = {}) =>
  packet({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 4,
    clean: true,
    clientId: 'raw',
    keepalive: 0,
    ...extra,
  });

/** Resolves when the socket is closed (an 'error' before it is expected: the broker resets it). */
const socketClosed = (socket: net.Socket) =>
  new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/** Resolves with the bytes written when the broker closed the connection. */
async function writeUntilClosed(socket: net.Socket, chunk: Buffer, max: number): Promise<number> {
  let written = 0;
  const gone = socketClosed(socket);
  while (!socket.destroyed && written < max) {
    if (!socket.write(chunk))
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), gone]);
    written += chunk.length;
  }
  await gone;
  return written;
}

/** A CONNECT built byte by byte (§3.1), for flag combinations mqtt.js and mqtt-packet refuse to send. */
function handmadeConnect(clientId: string, flags: number, password?: string): Buffer {
  const str = (s: string) => {
    const b = Buffer.from(s);
    return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
  };
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([4, flags, 0, 0]),
    str(clientId),
    ...(password === undefined ? [] : [str(password)]),
  ]);
  return Buffer.concat([Buffer.from([0x10, body.length]), body]);
}

/** The CONNACK return code the broker answers a raw CONNECT with. */
async function rawConnack(port: number, connectBytes: Buffer): Promise<number> {
  const socket = await rawSocket(port);
  const parser = mqttPacket.parser();
  const got = new Promise<number>((resolve) =>
    parser.on('packet', (p) => {
      if (p.cmd === 'connack') resolve((p as mqttPacket.IConnackPacket).returnCode ?? -1);
    }),
  );
  socket.on('data', (d) => parser.parse(d));
  socket.write(connectBytes);
  return got;
}

/** Resolves once a log line contains `text`. */
async function logged(lines: string[], text: string): Promise<string> {
  for (;;) {
    const line = lines.find((l) => l.includes(text));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('embedded broker: packet size', () => {
  it('closes a connection whose CONNECT announces 200 MB before buffering its body', async () => {
    const { broker, lines } = await start({ allowAnonymous: true });
    const socket = await rawSocket(broker.port);
    // CONNECT, Remaining Length 200,000,000 (variable byte integer, §2.2.3), then filler.
    let n = 200_000_000;
    const length: number[] = [];
    do {
      let byte = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) byte |= 0x80;
      length.push(byte);
    } while (n > 0);
    socket.write(Buffer.from([0x10, ...length]));
    const written = await writeUntilClosed(socket, Buffer.alloc(64 * 1024, 1), 256 * 1024 * 1024);
    // The socket buffers of the two ends hold a few MB at most; the old broker read on until 64 MB.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(lines.some((l) => l.includes('"level":40') && l.includes('mqtt limit exceeded'))).toBe(true);
  });

  it('refuses a PUBLISH over mqtt.maxPacketSize after CONNACK and accepts one under it', async () => {
    const { broker, url } = await start({ allowAnonymous: true, limits: { maxPacketSize: 128 * 1024 } });
    const got: number[] = [];
    await broker.forOwner('p').subscribe('big/#', (m) => got.push(m.payload.length));
    const c = await client(url);
    await c.publishAsync('big/ok', Buffer.alloc(100 * 1024), { qos: 1 });
    expect(got).toEqual([100 * 1024]);
    const gone = closed(c);
    c.publish('big/too', Buffer.alloc(200 * 1024), { qos: 1 });
    await gone;
    expect(got).toEqual([100 * 1024]);
  });

  it('bounds what a connection may send before its CONNACK', async () => {
    const { broker } = await start({ allowAnonymous: true });
    const socket = await rawSocket(broker.port);
    // A CONNECT whose will payload alone is 100 KiB: nobody is authenticated yet.
    socket.write(
      connectPacket({ will: { topic: 'w', payload: Buffer.alloc(100 * 1024), qos: 0, retain: false } }),
    );
    await socketClosed(socket);
  });
});

describe('embedded broker: connections that never authenticate', () => {
  it('closes a connection that sends no CONNECT within mqtt.connectTimeoutMs', async () => {
    const { broker } = await start({ limits: { connectTimeoutMs: 1000 } });
    const socket = await rawSocket(broker.port);
    await socketClosed(socket);
  });

  it('closes new connections while mqtt.maxPendingConnections await their CONNACK', async () => {
    const { broker, url, lines } = await start({
      allowAnonymous: true,
      limits: { maxPendingConnections: 3 },
    });
    const idle = [await rawSocket(broker.port), await rawSocket(broker.port), await rawSocket(broker.port)];
    const fourth = await rawSocket(broker.port);
    await socketClosed(fourth);
    await logged(lines, 'too many connections awaiting CONNACK');
    for (const s of idle) s.destroy();
    await Promise.all(idle.map(socketClosed));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const c = await client(url);
    expect(c.connected).toBe(true);
  });
});

describe('embedded broker: CONNECT rules', () => {
  it('[MQTT-3.1.3-8] refuses an empty client id with CleanSession 0 with CONNACK 2', async () => {
    const { broker } = await start({ allowAnonymous: true });
    // Connect flags 0x00: CleanSession 0; 0x02: CleanSession 1.
    expect(await rawConnack(broker.port, handmadeConnect('', 0x00))).toBe(2);
    expect(await rawConnack(broker.port, handmadeConnect('', 0x02))).toBe(0);
    expect(await rawConnack(broker.port, handmadeConnect('kept', 0x00))).toBe(0);
  });

  it('[MQTT-3.1.2-22] refuses a password without a user name with CONNACK 4', async () => {
    const { broker } = await start({ allowAnonymous: true });
    // Connect flags 0x42: Password and CleanSession, no User Name.
    expect(await rawConnack(broker.port, handmadeConnect('nouser', 0x42, 'secret'))).toBe(4);
  });
});

describe('embedded broker: a subscriber that stops reading', () => {
  /** A raw client that subscribes to `filter` and then never reads its socket again. */
  async function stuckSubscriber(port: number, filter: string, qos: 0 | 1) {
    const socket = await rawSocket(port);
    const parser = mqttPacket.parser();
    const subacked = new Promise<void>((resolve) =>
      parser.on('packet', (p) => {
        if (p.cmd === 'suback') resolve();
      }),
    );
    socket.on('data', (d) => parser.parse(d));
    socket.write(connectPacket({ clientId: 'stuck' }));
    socket.write(packet({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: filter, qos }] }));
    await subacked;
    socket.removeAllListeners('data');
    socket.pause();
    return socket;
  }

  it('does not slow a switch and a bulb: its QoS 0 messages are dropped, the pair gets every one', async () => {
    const { broker, url, lines } = await start({
      allowAnonymous: true,
      limits: { clientQueueBytes: 64 * 1024, maxPacketSize: 64 * 1024 },
    });
    await stuckSubscriber(broker.port, 'switch/#', 0);
    const bulb = await client(url, { clientId: 'bulb' });
    const sw = await client(url, { clientId: 'switch' });
    let received = 0;
    bulb.on('message', () => {
      received += 1;
    });
    await bulb.subscribeAsync('switch/#', { qos: 1 });
    // 32 MB in all: far more than the kernel's socket buffers of the stuck connection can hold.
    const payload = Buffer.alloc(8 * 1024, 7);
    const presses = 4000;
    for (let i = 0; i < presses; i++) await sw.publishAsync('switch/press', payload, { qos: 1 });
    await sw.publishAsync('switch/last', 'x', { qos: 1 });
    await new Promise<void>((resolve) => {
      const check = () => (received >= presses + 1 ? resolve() : setTimeout(check, 20));
      check();
    });
    const warn = lines.find((l) => l.includes('dropping its QoS 0 messages'));
    expect(warn).toBeDefined();
    // What the broker held for the stuck client stayed within its queue bound plus one packet.
    expect(JSON.parse(warn as string).queued).toBeLessThanOrEqual(64 * 1024 + 64 * 1024);
  });

  it('disconnects a stuck QoS 1 subscriber instead of waiting for it', async () => {
    const { broker, url, lines } = await start({
      allowAnonymous: true,
      limits: { clientQueueBytes: 64 * 1024, maxPacketSize: 64 * 1024 },
    });
    await stuckSubscriber(broker.port, 'switch/#', 1);
    const sw = await client(url, { clientId: 'switch' });
    const payload = Buffer.alloc(8 * 1024, 7);
    const slow = () => lines.some((l) => l.includes('too slow for QoS 1 messages; disconnected'));
    for (let i = 0; i < 4000 && !slow(); i++) await sw.publishAsync('switch/press', payload, { qos: 1 });
    // Everything it was sent after that point went nowhere: the switch was never held up.
    expect(JSON.parse(await logged(lines, 'too slow for QoS 1')).queued).toBeGreaterThan(64 * 1024);
  });
});
