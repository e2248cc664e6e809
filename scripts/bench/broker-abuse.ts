/**
 * The embedded broker under abuse, next to bare aedes (what the hub ran before its limits):
 *
 * 1. memory held after a CONNECT that announces 200 MB and a client that streams 64 MB behind it;
 * 2. switch → bulb latency (QoS 1 presses, one every 5 ms) with and without a subscriber to the same
 *    topics that never reads its socket.
 *
 *   npm run bench:broker-abuse
 */
import { once } from 'node:events';
import net from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import mqttPacket from 'mqtt-packet';
import pino from 'pino';
import { createBroker } from '../../core/mqtt/broker.ts';

interface Target {
  port: number;
  stop(): Promise<void>;
}

async function bareAedes(): Promise<Target> {
  const aedes = await Aedes.createBroker();
  const server = net.createServer(aedes.handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    stop: async () => {
      server.close();
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}

async function hearthBroker(): Promise<Target> {
  const broker = await createBroker({
    host: '127.0.0.1',
    port: 0,
    allowAnonymous: true,
    external: null,
    log: pino({ level: 'silent' }),
  });
  return { port: broker.port, stop: () => broker.stop() };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/** RSS growth while one client sends a CONNECT announcing 200 MB, then 64 MB (or until it is closed). */
async function hugeConnect(target: Target): Promise<{ sent: number; held: number }> {
  await settle();
  const before = process.memoryUsage();
  const socket = net.connect(target.port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  // CONNECT, Remaining Length 200,000,000 as an MQTT variable byte integer.
  socket.write(Buffer.from([0x10, 0x80, 0x84, 0xaf, 0x5f]));
  const chunk = Buffer.alloc(64 * 1024, 1);
  let sent = 0;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let open = true;
  void closed.then(() => {
    open = false;
  });
  while (open && sent < 64 * 1024 * 1024) {
    if (!socket.write(chunk))
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    sent += chunk.length;
  }
  await settle();
  const after = process.memoryUsage();
  socket.destroy();
  return { sent, held: after.rss - before.rss };
}

/** A client that subscribes to `switch/#` and never reads again. */
async function stuckSubscriber(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  const gen = (p: Record<string, unknown>) => mqttPacket.generate(p as unknown as mqttPacket.Packet);
  socket.write(
    gen({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: 'stuck',
      keepalive: 0,
    }),
  );
  socket.write(gen({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'switch/#', qos: 0 }] }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.pause();
  return socket;
}

/** Latency of `presses` QoS 1 presses of 4 KiB from a switch to a bulb; stops at 20 s. */
async function switchToBulb(port: number, presses: number) {
  const url = `mqtt://127.0.0.1:${port}`;
  const bulb = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  const sw = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  await bulb.subscribeAsync('switch/#', { qos: 1 });
  const latencies: number[] = [];
  const sentAt = new Map<number, number>();
  bulb.on('message', (_t, payload) => {
    const id = payload.readUInt32BE(0);
    const t = sentAt.get(id);
    if (t !== undefined) latencies.push(performance.now() - t);
  });
  const payload = Buffer.alloc(4096, 7);
  const deadline = performance.now() + 20_000;
  for (let i = 0; i < presses && performance.now() < deadline; i++) {
    payload.writeUInt32BE(i, 0);
    sentAt.set(i, performance.now());
    sw.publish('switch/press', Buffer.from(payload), { qos: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await Promise.all([bulb.endAsync(true), sw.endAsync(true)]);
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? Number.NaN;
  return { delivered: latencies.length, presses, p50: q(0.5), p99: q(0.99) };
}

async function main() {
  const PRESSES = 2000;
  console.log('1) CONNECT announcing 200 MB, 64 MB streamed behind it');
  for (const [name, make] of [
    ['bare aedes 1.2 (before)', bareAedes],
    ['hearth embedded (after)', hearthBroker],
  ] as const) {
    const target = await make();
    const { sent, held } = await hugeConnect(target);
    console.log(`   ${name.padEnd(26)} accepted ${mb(sent)} before closing; process RSS grew ${mb(held)}`);
    await target.stop();
  }
  console.log(`2) switch → bulb, ${PRESSES} QoS 1 presses of 4 KiB every 5 ms`);
  for (const [name, make, stuck] of [
    ['hearth, nobody stuck', hearthBroker, false],
    ['hearth, stuck subscriber', hearthBroker, true],
    ['bare aedes, stuck subscriber', bareAedes, true],
  ] as const) {
    const target = await make();
    const s = stuck ? await stuckSubscriber(target.port) : null;
    const r = await switchToBulb(target.port, PRESSES);
    console.log(
      `   ${name.padEnd(30)} delivered ${r.delivered}/${r.presses}  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`,
    );
    s?.destroy();
    await target.stop();
  }
  process.exit(0);
}

await main();
