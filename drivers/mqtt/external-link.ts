/**
 * The link to an external broker (Mosquitto, another box's zigbee2mqtt broker): one mqtt.js client per
 * driver instance with credentials, TLS (`mqtts://`, CA file), a clean session, and reconnects with
 * exponential backoff. mqtt.js re-subscribes after a reconnect without a session (docs/mqtt-devices.md#the-embedded-broker); the
 * driver resyncs on every `connect`.
 */
import type { MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { brokerUrlForLog, connectMqtt, type MqttClientSettings, topicMatches } from '../../core/sdk.ts';
import type { MessageHandler, MqttLink } from './link.ts';

export type BrokerOptions = MqttClientSettings;

export function externalLink(opts: BrokerOptions, log: Logger): MqttLink {
  let client: MqttClient | null = null;
  // Exact topics are looked up directly; only wildcard filters are matched one by one.
  const handlers = new Map<string, Set<MessageHandler>>();
  const wildcards = new Set<string>();
  const listeners: Array<(connected: boolean) => void> = [];
  const emit = (up: boolean) => {
    for (const l of listeners) l(up);
  };

  return {
    get connected() {
      return client?.connected ?? false;
    },
    async start() {
      const c = connectMqtt(opts);
      client = c;
      c.on('connect', () => {
        log.info({ broker: brokerUrlForLog(opts.url) }, 'connected to the MQTT broker');
        // A clean session has no subscriptions: (re)subscribe everything before the resync.
        if (handlers.size > 0) c.subscribe([...handlers.keys()], { qos: 0 });
        emit(true);
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
          if (filter !== topic && topicMatches(filter, topic))
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
