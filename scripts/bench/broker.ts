/**
 * Embedded broker throughput next to Debian's mosquitto, with the same mqtt.js clients: QoS 0, one
 * publisher, one subscriber, 64-byte payloads. Each broker runs in its own process (as on the Pi, where
 * clients are other devices); the clients share this process. The publisher keeps at most WINDOW
 * messages in flight so no broker has to drop or buffer without bound. Best of ROUNDS per broker.
 *
 *   npm run bench:broker          (the lead's `npm run bench:core` imports benchBroker())
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import pino from 'pino';
import { createBroker } from '../../core/mqtt/broker.ts';
import { MOSQUITTO, mosquitto } from '../../test/core/broker-fixtures.ts';

const MESSAGES = 40_000;
const WARMUP = 5_000;
const WINDOW = 1_000;
const ROUNDS = 2;
const LIMIT_MS = 20_000;
const PAYLOAD = Buffer.alloc(64, 'x');

/** Messages per second from the first publish to the last delivery (0 when the time limit hit first). */
async function measure(url: string, count: number): Promise<number> {
  const opts = { reconnectPeriod: 0 };
  const sub: MqttClient = await mqtt.connectAsync(url, opts);
  const pub: MqttClient = await mqtt.connectAsync(url, opts);
  try {
    await sub.subscribeAsync('bench/t', { qos: 0 });
    let received = 0;
    let wake: (() => void) | null = null;
    const finished = new Promise<boolean>((resolve) => {
      const limit = setTimeout(() => resolve(false), LIMIT_MS);
      sub.on('message', () => {
        received++;
        if (received === count) {
          clearTimeout(limit);
          resolve(true);
        }
        if (wake && sent - received <= WINDOW / 2) {
          wake();
          wake = null;
        }
      });
    });
    const started = process.hrtime.bigint();
    let sent = 0;
    while (sent < count) {
      if (sent - received >= WINDOW) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      pub.publish('bench/t', PAYLOAD, { qos: 0 });
      sent++;
    }
    const complete = await finished;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return complete ? Math.round(count / seconds) : 0;
  } finally {
    await Promise.all([sub.endAsync(true), pub.endAsync(true)]);
  }
}

async function best(url: string): Promise<number> {
  await measure(url, WARMUP);
  let top = 0;
  for (let i = 0; i < ROUNDS; i++) top = Math.max(top, await measure(url, MESSAGES));
  return top;
}

/** Our createBroker() in a child process of its own, like the hub. */
async function spawnEmbedded(): Promise<{ url: string; child: ChildProcess }> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--import', 'tsx', self, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `mqtt://127.0.0.1:${Number.parseInt(line.toString(), 10)}`, child };
}

export async function benchBroker(): Promise<Record<string, number>> {
  const embedded = await spawnEmbedded();
  let embeddedRate: number;
  try {
    embeddedRate = await best(embedded.url);
  } finally {
    embedded.child.kill('SIGTERM');
    await once(embedded.child, 'exit');
  }
  if (!existsSync(MOSQUITTO)) {
    console.warn(`broker bench: ${MOSQUITTO} is absent; no mosquitto figure (apt-get install -y mosquitto)`);
    return { embeddedMsgsPerSec: embeddedRate };
  }
  const mosq = await mosquitto();
  let mosquittoRate: number;
  try {
    mosquittoRate = await best(mosq.url);
  } finally {
    await mosq.cleanup();
  }
  return {
    embeddedMsgsPerSec: embeddedRate,
    mosquittoMsgsPerSec: mosquittoRate,
    embeddedToMosquittoRatio: mosquittoRate > 0 ? Math.round((embeddedRate / mosquittoRate) * 100) / 100 : 0,
  };
}

/** Child mode: serve the embedded broker on an ephemeral port, print the port, stop on SIGTERM. */
async function serve(): Promise<void> {
  const broker = await createBroker({
    host: '127.0.0.1',
    port: 0,
    allowAnonymous: true,
    external: null,
    log: pino({ level: 'warn' }),
  });
  process.stdout.write(`${broker.port}\n`);
  process.once('SIGTERM', () => {
    broker.stop().then(() => process.exit(0));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--serve')) {
    await serve();
  } else {
    const figures = await benchBroker();
    for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
  }
}
