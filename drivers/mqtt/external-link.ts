/**
 * The link to an external broker (Mosquitto, another box's zigbee2mqtt broker): one mqtt.js client per
 * driver instance with credentials, TLS (`mqtts://`, CA file), a clean session, and reconnects with
 * exponential backoff. mqtt.js re-subscribes after a reconnect without a session (docs/mqtt-devices.md#the-embedded-broker); the
 * driver resyncs on every `connect`.
 */
import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { MessageHandler, MqttLink } from './link.ts';

export interface BrokerOptions {
  url: string;
  username?: string;
  password?: string;
  /** PEM file of the CA that signed the broker's certificate. */
  caFile?: string;
  rejectUnauthorized?: boolean;
  clientId?: string;
  /** Backoff between reconnection attempts: starts here, doubles up to `reconnectMaxMs`. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

export function externalLink(opts: BrokerOptions, log: Logger): MqttLink {
  let client: MqttClient | null = null;
  let delay = opts.reconnectMinMs ?? 1000;
  const max = opts.reconnectMaxMs ?? 30_000;
  // Exact topics are looked up directly; only wildcard filters are matched one by one.
  const handlers = new Map<string, Set<MessageHandler>>();
  const wildcards = new Set<string>();
  const listeners: Array<(connected: boolean) => void> = [];
  const emit = (up: boolean) => {
    for (const l of listeners) l(up);
  };

  const options = (): IClientOptions => ({
    clean: true,
    resubscribe: false, // done in the connect handler below, for every filter at once
    clientId: opts.clientId ?? `hearth-${Math.random().toString(16).slice(2, 10)}`,
    reconnectPeriod: delay,
    connectTimeout: 10_000,
    keepalive: 30,
    ...(opts.username !== undefined ? { username: opts.username } : {}),
    ...(opts.password !== undefined ? { password: opts.password } : {}),
    ...(opts.caFile ? { ca: readFileSync(opts.caFile) } : {}),
    rejectUnauthorized: opts.rejectUnauthorized ?? true,
  });

  return {
    get connected() {
      return client?.connected ?? false;
    },
    async start() {
      const c = mqtt.connect(opts.url, options());
      client = c;
      c.on('connect', () => {
        delay = opts.reconnectMinMs ?? 1000;
        log.info({ broker: redactUrl(opts.url) }, 'connected to the MQTT broker');
        // A clean session has no subscriptions: (re)subscribe everything before the resync.
        if (handlers.size > 0) c.subscribe([...handlers.keys()], { qos: 0 });
        emit(true);
      });
      // Prepended: mqtt.js arms its retry timer with `reconnectPeriod` in its own 'close' listener, so the
      // period must be set before that runs (else the first retry after a reconnection waits the longest).
      c.prependListener('close', () => {
        if (client !== c) return;
        // The next attempt waits `delay`; each failure doubles the wait after it, up to `max`.
        c.options.reconnectPeriod = delay;
        delay = Math.min(max, delay * 2);
      });
      // Appended: by then mqtt.js has marked the client disconnected, which is what listeners read.
      c.on('close', () => {
        if (client === c) emit(false);
      });
      // Errors (refused CONNACK, DNS, TLS) are followed by a close and a retry: log, never throw.
      c.on('error', (err) => log.warn({ err: { message: err.message } }, 'MQTT broker connection error'));
      c.on('message', (topic, payload, packet) => {
        const retain = packet.retain;
        for (const h of handlers.get(topic) ?? []) h(topic, payload, retain);
        for (const filter of wildcards)
          if (filter !== topic && matches(filter, topic))
            for (const h of handlers.get(filter) ?? []) h(topic, payload, retain);
      });
    },
    async stop() {
      const c = client;
      client = null;
      if (c) await c.endAsync(true);
      emit(false);
    },
    async publish(topic, payload) {
      const c = client;
      // A command replayed after a reconnect could switch a light minutes later: refuse instead.
      if (!c?.connected) throw new Error('not connected to the MQTT broker');
      await c.publishAsync(topic, payload, { qos: 0, retain: false });
    },
    async subscribe(filter, handler) {
      let set = handlers.get(filter);
      if (!set) {
        set = new Set();
        handlers.set(filter, set);
        if (filter.includes('+') || filter.includes('#')) wildcards.add(filter);
        if (client?.connected) client.subscribe(filter, { qos: 0 });
      }
      set.add(handler);
      return async () => {
        set.delete(handler);
        if (set.size === 0 && handlers.get(filter) === set) {
          handlers.delete(filter);
          wildcards.delete(filter);
          if (client?.connected) await client.unsubscribeAsync(filter).catch(() => {});
        }
      };
    },
    onStatus(listener) {
      listeners.push(listener);
    },
  };
}

function matches(filter: string, topic: string): boolean {
  if (filter === topic) return true;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}

/** The broker URL without user info, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(invalid url)';
  }
}
