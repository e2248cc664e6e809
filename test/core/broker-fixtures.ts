import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import pino from 'pino';
import { createBroker } from '../../core/mqtt/broker.ts';
import type { BrokerOptions, BrokerService } from '../../core/mqtt/types.ts';

/** A debug-level pino logger whose lines the test can read back. */
export function captureLog() {
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = chunk.toString();
      lines.push(line);
      for (const w of waiters.filter((w) => line.includes(w.text))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      done();
    },
  });
  /** Resolves when a log line containing `text` is written (or already was). */
  const waitFor = (text: string) =>
    new Promise<void>((resolve) => {
      if (lines.some((line) => line.includes(text))) return resolve();
      waiters.push({ text, resolve });
    });
  return { log: pino({ level: 'debug' }, sink), lines, waitFor };
}

export interface TestBroker {
  broker: BrokerService;
  url: string;
  lines: string[];
}

/** The real embedded broker on 127.0.0.1, port 0. */
export async function startEmbedded(overrides: Partial<BrokerOptions> = {}): Promise<TestBroker> {
  const { log, lines } = captureLog();
  const broker = await createBroker({
    host: '127.0.0.1',
    port: 0,
    allowAnonymous: true,
    external: null,
    log,
    ...overrides,
  });
  return { broker, url: `mqtt://127.0.0.1:${broker.port}`, lines };
}

/** A real mqtt.js client that does not reconnect on its own (tests decide what happens). */
export function connect(url: string, opts: IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...opts });
}

/** The CONNACK return code with which the broker refused a connection. */
export async function refusalCode(url: string, opts: IClientOptions = {}): Promise<number> {
  try {
    const client = await connect(url, opts);
    await client.endAsync();
  } catch (err) {
    return (err as { code: number }).code;
  }
  throw new Error('the broker accepted the connection');
}

/** Resolves with the next message on `topic` that this client receives. */
export function nextMessage(client: MqttClient, topic: string) {
  return new Promise<{ payload: string; retain: boolean }>((resolve) => {
    const onMessage = (t: string, payload: Buffer, packet: { retain: boolean }) => {
      if (t !== topic) return;
      client.off('message', onMessage);
      resolve({ payload: payload.toString(), retain: packet.retain });
    };
    client.on('message', onMessage);
  });
}

/** Resolves when the client's connection is closed. */
export function closed(client: MqttClient): Promise<void> {
  return new Promise((resolve) => {
    if (!client.connected) return resolve();
    client.once('close', () => resolve());
  });
}

/** A promise and its resolver, for a handler whose call the test awaits. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** A free TCP port on loopback (bound then released), for a broker that cannot take port 0. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Mosquitto {
  port: number;
  url: string;
  /** Starts (or starts again) the same broker on the same port; resolves once it accepts TCP. No-op while running. */
  start(): Promise<void>;
  /** SIGTERM, resolved when the process has exited. */
  stop(): Promise<void>;
  /** The running process id (benchmarks read its CPU time). */
  pid(): number | undefined;
  cleanup(): Promise<void>;
}

/**
 * Debian's mosquitto on 127.0.0.1: anonymous, or one user from a password file; TLS with a cert and key;
 * `aclTopics`: with a user, the topic filters that user may read and write (mosquitto's `acl_file`).
 */
export async function mosquitto(
  user?: { username: string; password: string },
  tls?: { certfile: string; keyfile: string },
  aclTopics?: string[],
): Promise<Mosquitto> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-mosquitto-'));
  const base = ['persistence false', 'log_dest none'];
  if (tls) base.push(`certfile ${tls.certfile}`, `keyfile ${tls.keyfile}`);
  // Run as root (CI) mosquitto drops to its own user, which could not read our temp files.
  if (process.getuid?.() === 0) base.push('user root');
  if (user) {
    const passwd = join(dir, 'passwd');
    execFileSync('/usr/bin/mosquitto_passwd', ['-b', '-c', passwd, user.username, user.password]);
    base.push('allow_anonymous false', `password_file ${passwd}`);
    if (aclTopics) {
      const acl = join(dir, 'acl');
      const lines = [`user ${user.username}`, ...aclTopics.map((t) => `topic readwrite ${t}`)];
      await writeFile(acl, `${lines.join('\n')}\n`);
      base.push(`acl_file ${acl}`);
    }
  } else {
    base.push('allow_anonymous true');
  }
  const confPath = join(dir, 'mosquitto.conf');
  let port = 0;
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child && child.exitCode === null) return;
    child = spawn(MOSQUITTO, ['-c', confPath], { stdio: 'ignore' });
    const proc = child;
    for (let attempt = 0; attempt < 100; attempt++) {
      if (proc.exitCode !== null) throw new Error(`mosquitto exited with ${proc.exitCode}`);
      if (await accepts(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('mosquitto did not start listening within 5 s');
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    await exited;
  };
  // Another process may take the free port before mosquitto binds it: pick another and try again.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    await writeFile(confPath, `${[`listener ${port} 127.0.0.1`, ...base].join('\n')}\n`);
    try {
      await start();
      break;
    } catch (err) {
      await stop();
      if (attempt === 3) throw err;
    }
  }
  return {
    port,
    url: `${tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`,
    start,
    stop,
    pid: () => child?.pid,
    async cleanup() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
