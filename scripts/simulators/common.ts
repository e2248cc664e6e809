/**
 * What every simulated device shares: a real mqtt.js client with the device's last will, a log of the
 * commands it received (with their retain flag: Hearth must never retain a command), and a way to die
 * ungracefully so the broker publishes the will.
 */
import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';

export interface SimOptions {
  url: string;
  username?: string;
  password?: string;
  /** Reconnect period of the device's client (real devices retry every few seconds). */
  reconnectMs?: number;
  /** PEM file of the CA for an `mqtts://` broker. */
  ca?: string;
}

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
}

/**
 * Which kind of colour command a simulated light received: a colour temperature (`ct`) or a colour (`xy`,
 * however the protocol spells it). A command carrying both is recorded as both, in that order.
 */
export type ColourCommandKind = 'ct' | 'xy';

export interface SimDevice {
  readonly client: MqttClient;
  readonly received: Received[];
  /** Waits until the device has received `n` commands in total. */
  waitReceived(n: number): Promise<Received[]>;
  /** Clean disconnect (no will). */
  stop(): Promise<void>;
  /** Drops the TCP connection without DISCONNECT: the broker publishes the will. */
  crash(): void;
}

export function connectSim(
  opts: SimOptions,
  clientId: string,
  will: { topic: string; payload: string; retain: boolean },
): MqttClient {
  const o: IClientOptions = {
    clientId,
    clean: true,
    reconnectPeriod: opts.reconnectMs ?? 200,
    keepalive: 30,
    will: { topic: will.topic, payload: Buffer.from(will.payload), qos: 0, retain: will.retain },
    ...(opts.username !== undefined ? { username: opts.username } : {}),
    ...(opts.password !== undefined ? { password: opts.password } : {}),
    ...(opts.ca !== undefined ? { ca: readFileSync(opts.ca) } : {}),
  };
  return mqtt.connect(opts.url, o);
}

export function simDevice(client: MqttClient): SimDevice & { record(r: Received): void } {
  const received: Received[] = [];
  let waiters: Array<{ n: number; resolve: (r: Received[]) => void }> = [];
  return {
    client,
    received,
    record(r) {
      received.push(r);
      const ready = waiters.filter((w) => received.length >= w.n);
      waiters = waiters.filter((w) => received.length < w.n);
      for (const w of ready) w.resolve(received);
    },
    waitReceived(n) {
      return received.length >= n
        ? Promise.resolve(received)
        : new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async stop() {
      await client.endAsync();
    },
    crash() {
      client.options.reconnectPeriod = 0;
      client.stream.destroy();
      client.end(true);
    },
  };
}

/**
 * Sends a device's answer without waiting. One cut short because the device is stopping ("client
 * disconnecting") is lost, as on the wire, instead of surfacing as an unhandled rejection in a test run.
 */
export function answer(p: Promise<unknown>): void {
  p.catch(() => {});
}

/** Resolves once the client is connected (the first time). */
export function connected(client: MqttClient): Promise<void> {
  return client.connected
    ? Promise.resolve()
    : new Promise((resolve) => client.once('connect', () => resolve()));
}

/** Adds members to a simulator object, keeping getters live (Object.assign would copy their values once). */
export function extend<T extends object, E extends object>(target: T, extra: E): T & E {
  return Object.defineProperties(target, Object.getOwnPropertyDescriptors(extra)) as T & E;
}
