import { Writable } from 'node:stream';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import pino from 'pino';
import { createBroker } from '../../core/mqtt/broker.ts';
import type { BrokerOptions, BrokerService } from '../../core/mqtt/types.ts';

/** A debug-level pino logger whose lines the test can read back. */
export function captureLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
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
