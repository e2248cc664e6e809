import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { IClientOptions, MqttClient } from 'mqtt';

// mqtt.js is loaded on the first connection (CommonJS, so synchronously): a hub on its embedded broker
// with no external link never needs it, and it was 20–30 ms of every start.
const load = createRequire(import.meta.url);
let mqttModule: typeof import('mqtt') | undefined;

/** How Hearth reaches a broker it does not run itself: the core's external mode and the mqtt driver's links. */
export interface MqttClientSettings {
  /** `mqtt://`, `mqtts://`, `ws://` or `wss://`; may carry user:password (never logged). */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** PEM file of the CA that signed the broker's certificate. */
  caFile?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
  clientId?: string | undefined;
  /** Backoff between reconnection attempts: starts here, doubles up to `reconnectMaxMs`. */
  reconnectMinMs?: number | undefined;
  reconnectMaxMs?: number | undefined;
}

/**
 * One mqtt.js client with a clean session, TLS settings, no automatic resubscription (callers restore
 * their own subscriptions on `connect`) and exponential reconnection backoff. `extra` adds options one
 * caller needs (e.g. the core keeps retrying after a refused CONNACK).
 */
export function connectMqtt(settings: MqttClientSettings, extra: Partial<IClientOptions> = {}): MqttClient {
  const min = settings.reconnectMinMs ?? 1000;
  const max = settings.reconnectMaxMs ?? 30_000;
  const options: IClientOptions = {
    clientId: settings.clientId ?? `hearth-${randomBytes(6).toString('hex')}`,
    clean: true,
    resubscribe: false,
    reconnectPeriod: min,
    connectTimeout: 10_000,
    keepalive: 30,
    rejectUnauthorized: settings.rejectUnauthorized ?? true,
    ...extra,
  };
  if (settings.username !== undefined) options.username = settings.username;
  if (settings.password !== undefined) options.password = settings.password;
  if (settings.caFile !== undefined) options.ca = readFileSync(settings.caFile);
  mqttModule ??= load('mqtt') as typeof import('mqtt');
  const client = mqttModule.connect(settings.url, options);
  let delay = min;
  // Prepended: mqtt.js arms its retry timer with `reconnectPeriod` in its own 'close' listener, so the
  // period must be set before that runs (else the first retry after a reconnection waits the longest).
  client.prependListener('close', () => {
    client.options.reconnectPeriod = delay;
    delay = Math.min(max, delay * 2);
  });
  client.on('connect', () => {
    delay = min;
  });
  return client;
}

/** The broker URL without user info, for logs and errors. */
export function brokerUrlForLog(url: string): string {
  const u = URL.parse(url);
  if (!u) return '(invalid url)';
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}
