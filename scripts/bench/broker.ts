/**
 * Embedded broker throughput next to Debian's mosquitto, with the same mqtt.js clients: QoS 0, one
 * publisher, one subscriber, 64-byte payloads. Each broker runs in its own process (as on the Pi, where
 * clients are other devices); the clients share this process. The publisher keeps at most WINDOW
 * messages in flight so no broker has to drop or buffer without bound. Best of ROUNDS per broker, the
 * brokers measured alternately so load from elsewhere on the machine hits both alike.
 *
 * Also prints the broker process' CPU time per message (from /proc), which varies far less with the
 * machine's load than msgs/s does.
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
import { cpuMicros } from './proc-cpu.ts';

const MESSAGES = 40_000;
const WARMUP = 5_000;
const WINDOW = 1_000;
const ROUNDS = 3;
const LIMIT_MS = 20_000;
const PAYLOAD = Buffer.alloc(64, 'x');

interface Target {
  url: string;
  pid: number | undefined;
}
interface Figures {
  msgsPerSec: number;
  cpuMicrosPerMsg: number;
}

/** Publishes `count` messages and waits for all of them (0 msgs/s when the time limit hit first). */
async function measure(target: Target, count: number): Promise<Figures> {
  const opts = { reconnectPeriod: 0 };
  const sub: MqttClient = await mqtt.connectAsync(target.url, opts);
  const pub: MqttClient = await mqtt.connectAsync(target.url, opts);
  try {
    await sub.subscribeAsync('bench/t', { qos: 0 });
    let received = 0;
    let sent = 0;
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
    const cpuBefore = cpuMicros(target.pid);
    const started = process.hrtime.bigint();
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
    const cpu = cpuMicros(target.pid) - cpuBefore;
    return {
      msgsPerSec: complete ? Math.round(count / seconds) : 0,
      cpuMicrosPerMsg: Math.round((cpu / count) * 10) / 10,
    };
  } finally {
    await Promise.all([sub.endAsync(true), pub.endAsync(true)]);
  }
}

/** Our createBroker() in a child process of its own, like the hub. */
async function spawnEmbedded(): Promise<{ target: Target; child: ChildProcess }> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--import', 'tsx', self, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    target: { url: `mqtt://127.0.0.1:${Number.parseInt(line.toString(), 10)}`, pid: child.pid },
    child,
  };
}

export async function benchBroker(): Promise<Record<string, number>> {
  const embedded = await spawnEmbedded();
  const mosq = existsSync(MOSQUITTO) ? await mosquitto() : null;
  if (!mosq)
    console.warn(`broker bench: ${MOSQUITTO} is absent; no mosquitto figure (apt-get install -y mosquitto)`);
  try {
    const targets = [embedded.target];
    if (mosq) targets.push({ url: mosq.url, pid: mosq.pid() });
    for (const target of targets) await measure(target, WARMUP);
    const best: Figures[] = targets.map(() => ({ msgsPerSec: 0, cpuMicrosPerMsg: Number.POSITIVE_INFINITY }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        const run = await measure(target, MESSAGES);
        const top = best[i]!;
        top.msgsPerSec = Math.max(top.msgsPerSec, run.msgsPerSec);
        top.cpuMicrosPerMsg = Math.min(top.cpuMicrosPerMsg, run.cpuMicrosPerMsg);
      }
    }
    const [ours, theirs] = best as [Figures, Figures | undefined];
    const figures: Record<string, number> = {
      embeddedMsgsPerSec: ours.msgsPerSec,
      embeddedCpuMicrosPerMsg: ours.cpuMicrosPerMsg,
    };
    if (!theirs) return figures;
    return {
      ...figures,
      mosquittoMsgsPerSec: theirs.msgsPerSec,
      mosquittoCpuMicrosPerMsg: theirs.cpuMicrosPerMsg,
      embeddedToMosquittoRatio:
        theirs.msgsPerSec > 0 ? Math.round((ours.msgsPerSec / theirs.msgsPerSec) * 100) / 100 : 0,
    };
  } finally {
    embedded.child.kill('SIGTERM');
    await once(embedded.child, 'exit');
    await mosq?.cleanup();
  }
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
