import type { WebSocket } from 'ws';
import { HearthError } from '../errors.ts';
import { brokerUrlForLog, connectMqtt } from './client.ts';
import { createOwnerApi, type Transport } from './owner-api.ts';
import { topicMatches } from './topics.ts';
import type { BrokerOptions, BrokerService, MqttMessage } from './types.ts';

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

type Handler = (msg: MqttMessage) => void;

/**
 * One shared mqtt.js client to an external broker (Mosquitto, EMQX). Authentication and ACLs are then
 * the external broker's job: hooks() is accepted and ignored. Returns without waiting for the first
 * connection, so the hub starts while the broker is down and keeps retrying with backoff.
 */
export function createExternalBroker(
  opts: BrokerOptions & { external: NonNullable<BrokerOptions['external']> },
) {
  const { log, external } = opts;
  const url = URL.parse(external.url);
  // The URL may carry user:password, so it never goes into the error (or the log).
  if (!url)
    throw new HearthError(
      'mqtt_bad_url',
      'mqtt.external.url is not a valid URL (mqtt://, mqtts://, ws:// or wss://)',
    );
  const safeUrl = brokerUrlForLog(external.url);
  // Subscriptions are restored below from our own table, after every reconnect.
  const client = connectMqtt(
    { ...external, reconnectMinMs: FIRST_RETRY_MS, reconnectMaxMs: MAX_RETRY_MS },
    {
      reconnectOnConnackError: true, // wrong credentials get fixed on the broker side; keep trying
      queueQoSZero: false, // a QoS 0 command is stale after an outage: fail fast instead of replaying
    },
  );
  const subscriptions = new Map<string, Set<Handler>>();
  const connectHandlers = new Set<() => void>();
  let warnedHooks = false;
  /** The same error repeats on every retry during an outage: warn once per distinct message. */
  let lastError = '';
  /** Rejecters of QoS 0 publishes still being written, failed when the connection closes. */
  const lostWaiters = new Set<() => void>();

  client.on('connect', () => {
    log.info({ url: safeUrl }, 'connected to external mqtt broker');
    lastError = '';
    const filters = [...subscriptions.keys()];
    if (filters.length > 0) {
      client.subscribe(filters, { qos: 1 }, (err) => {
        if (err) log.warn({ err: err.message }, 'restoring mqtt subscriptions failed');
      });
    }
    for (const handler of connectHandlers) handler();
  });
  client.on('close', () => {
    for (const fail of lostWaiters) fail();
    lostWaiters.clear();
  });
  client.on('offline', () => log.warn({ url: safeUrl }, 'external mqtt broker unreachable; retrying'));
  client.on('error', (err) => {
    const level = err.message === lastError ? 'debug' : 'warn';
    lastError = err.message;
    log[level]({ url: safeUrl, err: err.message }, 'external mqtt broker error');
  });
  client.on('message', (topic, payload, packet) => {
    for (const [filter, handlers] of subscriptions) {
      if (!topicMatches(filter, topic)) continue;
      for (const handler of handlers) handler({ topic, payload, retain: packet.retain });
    }
  });

  const transport: Transport = {
    mode: 'external',
    publish(topic, payload, { qos, retain }) {
      if (qos === 1) return client.publishAsync(topic, payload, { qos, retain }).then(() => undefined);
      return new Promise<void>((resolve, reject) => {
        // mqtt.js waits for 'drain' on a full socket, which never comes once the socket died: fail then.
        const fail = () => reject(new Error('mqtt: connection to the external broker lost'));
        lostWaiters.add(fail);
        client.publish(topic, payload, { qos, retain }, (err) => {
          lostWaiters.delete(fail);
          if (err) reject(err);
          else resolve();
        });
      });
    },
    async subscribe(filter, handler) {
      let handlers = subscriptions.get(filter);
      if (!handlers) {
        handlers = new Set();
        subscriptions.set(filter, handlers);
      }
      handlers.add(handler);
      const remove = async () => {
        handlers.delete(handler);
        if (handlers.size > 0 || subscriptions.get(filter) !== handlers) return;
        subscriptions.delete(filter);
        if (client.connected) await client.unsubscribeAsync(filter);
      };
      // While disconnected the 'connect' listener subscribes it; the retained copies come from the broker.
      if (client.connected) {
        try {
          await client.subscribeAsync(filter, { qos: 1 });
        } catch (err) {
          // Lost connection: kept, and subscribed again by the 'connect' listener.
          if (!(err instanceof Error && 'packet' in err)) return remove;
          // Refused by the broker's ACL (SUBACK 0x80): keep nothing, so it is not retried on reconnect.
          handlers.delete(handler);
          if (handlers.size === 0 && subscriptions.get(filter) === handlers) subscriptions.delete(filter);
          throw new HearthError(
            'mqtt_subscription_refused',
            `mqtt: the external broker refused the subscription to ${filter}`,
            {
              cause: err,
            },
          );
        }
      }
      return remove;
    },
    addHooks(owner) {
      if (warnedHooks) return;
      warnedHooks = true;
      log.info({ owner }, 'mqtt hooks are ignored with an external broker; its own ACLs apply');
    },
    removeHooks() {},
    // Connections to an external broker are its to close (its own authentication and ACLs apply).
    disconnect: () => 0,
    listeners: () => [],
    retained: () =>
      Promise.reject(new Error('mqtt: retained messages live on the external broker; ask it directly')),
    addConnectHandler(handler) {
      connectHandlers.add(handler);
      if (client.connected) setImmediate(() => connectHandlers.has(handler) && handler());
      return () => connectHandlers.delete(handler);
    },
  };

  const service: BrokerService = {
    mode: 'external',
    port: 0,
    maxPacketSize: 0,
    forOwner: (owner) => createOwnerApi(transport, owner, log.child({ mqttOwner: owner })),
    handleWebSocket(socket: WebSocket) {
      // 1011: the hub has no embedded broker to serve MQTT over WebSocket (RFC 6455 §7.4.1).
      socket.close(1011, 'mqtt is served by the external broker');
    },
    async stop() {
      await client.endAsync(!client.connected);
      log.info('external mqtt client stopped');
    },
  };
  return service;
}
