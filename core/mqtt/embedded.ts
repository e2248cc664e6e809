import { once } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { Aedes, type AedesPublishPacket, type Client } from 'aedes';
import { createWebSocketStream, type WebSocket } from 'ws';
import { HearthError } from '../errors.ts';
import { type ClientState, HookChain } from './access.ts';
import { aedesHandlers } from './aedes-handlers.ts';
import {
  type BrokerLimits,
  DEFAULT_LIMITS,
  guardReads,
  PacketSizeScanner,
  shapeWrites,
  type WriteShaper,
} from './connection-guard.ts';
import { createOwnerApi, type Transport } from './owner-api.ts';
import { PacketStringScanner } from './string-check.ts';
import { filterCovers, hidesDollarTopic } from './topics.ts';
import type { BrokerOptions, BrokerService, MqttListener, MqttMessage } from './types.ts';

/** aedes in this process: TCP on opts.host:opts.port, MQTT over WebSocket via handleWebSocket(). */
export async function createEmbeddedBroker(opts: BrokerOptions): Promise<BrokerService> {
  const log = opts.log;
  const limits: BrokerLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  const chain = new HookChain(opts.allowAnonymous, log, opts.clientsAfter);
  const states = new WeakMap<Client, ClientState>();
  const links = new WeakMap<Client, Link>();
  const aedes = await Aedes.createBroker({
    ...aedesHandlers(
      chain,
      states,
      log,
      (client, packet) => {
        if (!mayQueue(client, packet)) return false;
        // aedes writes what it forwards from a setImmediate: the connection holds its socket until then.
        links.get(client)?.writes.expect();
        return true;
      },
      (clientId) => {
        const holder = connectedClients(aedes)[clientId];
        return holder ? states.get(holder) : undefined;
      },
    ),
    connectTimeout: limits.connectTimeoutMs,
  });
  // Connections not yet past CONNECT are not aedes clients; stop() must still close them.
  const connections = new Set<Duplex>();
  /** Connections without a successful CONNACK yet: what an unauthenticated crowd can hold. */
  const pending = new Set<Duplex>();
  const overCrowd = warnOncePer(60_000);
  let stopped = false;

  /**
   * The slow-consumer policy, asked before each delivery: a client more than `clientQueueBytes` behind
   * loses its live QoS 0 messages, and a QoS 1/2 message for a QoS 1/2 subscription disconnects it
   * (a persistent session queues the following ones while it is away). Retained messages sent on SUBSCRIBE are paced by the socket instead.
   */
  const mayQueue = (client: Client, packet: AedesPublishPacket): boolean => {
    const link = links.get(client);
    if (!link || packet.retain || link.stream.writableLength <= limits.clientQueueBytes) return true;
    const queued = link.stream.writableLength;
    if (packet.qos > 0 && link.keepsQos) {
      if (!link.closing) {
        link.closing = true;
        log.warn({ clientId: client.id, queued }, 'mqtt client too slow for QoS 1 messages; disconnected');
        setImmediate(() => client.close());
      }
      return false;
    }
    link.dropped += 1;
    if (!link.dropping) {
      link.dropping = true;
      log.warn({ clientId: client.id, queued }, 'mqtt client too slow; dropping its QoS 0 messages');
      // Past 16 KiB a write has returned false, so 'drain' comes once the client has read everything.
      link.stream.once('drain', () => {
        link.dropping = false;
        log.info({ clientId: client.id, dropped: link.dropped }, 'mqtt client caught up');
        link.dropped = 0;
      });
    }
    return false;
  };

  aedes.on('clientError', (client, err) =>
    log.debug({ clientId: client.id, err: err.message }, 'mqtt client error'),
  );
  aedes.on('connectionError', (client, err) =>
    log.debug({ clientId: client.id, err: err.message }, 'mqtt bad connection'),
  );
  aedes.on('clientDisconnect', (client) => log.debug({ clientId: client.id }, 'mqtt client disconnected'));

  aedes.on('subscribe', (subscriptions, client) => {
    const link = links.get(client);
    if (link && subscriptions.some((s) => s.qos > 0)) link.keepsQos = true;
  });
  aedes.on('connackSent', (packet, client) => {
    const link = links.get(client);
    if (link && packet.returnCode === 0) {
      link.accepted = true;
      pending.delete(link.stream);
    }
  });

  const accept = (stream: Duplex, transport: 'tcp' | 'ws'): void => {
    if (pending.size >= limits.maxPendingConnections) {
      if (overCrowd())
        log.warn(
          { pending: pending.size, limit: limits.maxPendingConnections },
          'mqtt: too many connections awaiting CONNACK; closing new ones',
        );
      stream.destroy();
      return;
    }
    connections.add(stream);
    pending.add(stream);
    stream.once('close', () => {
      connections.delete(stream);
      pending.delete(stream);
    });
    const link: Link = {
      stream,
      writes: shapeWrites(stream, limits.clientQueueBytes + limits.maxPacketSize),
      accepted: false,
      keepsQos: false,
      dropping: false,
      closing: false,
      dropped: 0,
    };
    const sizes = new PacketSizeScanner(limits.maxPacketSize, () => link.accepted);
    const strings = new PacketStringScanner();
    let malformed = false;
    let client: Client | undefined;
    guardReads(
      stream,
      (chunk) => {
        const tooLarge = sizes.feed(chunk);
        if (tooLarge) return tooLarge;
        const bad = strings.feed(chunk);
        malformed = bad !== null;
        return bad;
      },
      (reason) =>
        log.warn(
          { transport, clientId: client?.id ?? undefined, reason },
          malformed ? 'mqtt malformed packet; connection closed' : 'mqtt limit exceeded; connection closed',
        ),
    );
    client = aedes.handle(stream);
    links.set(client, link);
  };

  let server: net.Server | null = null;
  let port = 0;
  if (opts.enabled !== false) {
    server = net.createServer((socket) => {
      // Nagle off. Deliveries of one loop turn already leave in one `writev` (`shapeWrites`), so Nagle
      // saves no packets; it only held each batch until the subscriber ACKed the previous one, and a
      // QoS 0 subscriber sends nothing to carry that ACK, so it waited for the delayed-ACK timer (40 ms
      // on Linux): the broker sat idle between batches.
      socket.setNoDelay(true);
      accept(socket, 'tcp');
    });
    server.listen(opts.port, opts.host);
    try {
      await once(server, 'listening');
    } catch (err) {
      await new Promise<void>((resolve) => aedes.close(resolve));
      throw err;
    }
    port = (server.address() as net.AddressInfo).port;
    log.info({ host: opts.host, port }, 'mqtt broker listening');
  }

  const assertRunning = () => {
    if (stopped) throw new HearthError('mqtt_broker_stopped', 'mqtt: the broker has stopped');
  };
  const transport: Transport = {
    mode: 'embedded',
    publish: (topic, payload, { qos, retain }) => {
      assertRunning();
      // aedes.publish delivers on behalf of the server: no authorizePublish for in-process publishers.
      const packet = { cmd: 'publish' as const, topic, payload, qos, retain, dup: false };
      if (qos === 0 && !retain) return publishAtMostOnce(aedes, packet, log);
      return new Promise((resolve, reject) => {
        aedes.publish(packet, (err) => (err ? reject(err) : resolve()));
      });
    },
    subscribe: async (filter, handler) => {
      assertRunning();
      return subscribeInProcess(aedes, filter, handler);
    },
    addHooks: (owner, hooks) => chain.add(owner, hooks),
    removeHooks: (owner) => chain.removeOwner(owner),
    async retained(filter) {
      assertRunning();
      const found: MqttMessage[] = [];
      for await (const packet of retainedStore(aedes).createRetainedStreamCombi([filter])) {
        if (hidesDollarTopic(filter, packet.topic)) continue;
        found.push({ topic: packet.topic, payload: asBuffer(packet.payload), retain: true });
      }
      return found;
    },
    disconnect(match) {
      let closed = 0;
      for (const client of Object.values(connectedClients(aedes))) {
        const state = states.get(client);
        if (!state || !match(state.info)) continue;
        log.info({ clientId: state.info.id }, 'mqtt client disconnected by a plugin');
        client.close();
        closed += 1;
      }
      return closed;
    },
    listeners(filter) {
      const found: MqttListener[] = [];
      for (const client of Object.values(connectedClients(aedes))) {
        const state = states.get(client);
        if (!state) continue;
        const filters = Object.keys(subscriptionsOf(client)).filter((held) => filterCovers(held, filter));
        if (filters.length > 0) found.push({ client: state.info, filters });
      }
      return found;
    },
    addConnectHandler(handler) {
      // The embedded broker is already up: "connected" once, right after registration.
      const timer = setImmediate(handler);
      return () => clearImmediate(timer);
    },
  };

  return {
    mode: 'embedded',
    get port() {
      return port;
    },
    maxPacketSize: limits.maxPacketSize,
    forOwner: (owner) => createOwnerApi(transport, owner, log.child({ mqttOwner: owner })),
    handleWebSocket(socket: WebSocket) {
      if (stopped) return socket.terminate();
      accept(createWebSocketStream(socket), 'ws');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const closed = server
        ? new Promise<void>((resolve) => server.close(() => resolve()))
        : Promise.resolve();
      await new Promise<void>((resolve) => aedes.close(resolve));
      for (const stream of connections) stream.destroy();
      await closed;
      log.info('mqtt broker stopped');
    },
  };
}

/** One connection as the broker's limits see it. */
interface Link {
  stream: Duplex;
  writes: WriteShaper;
  /** CONNACK 0 sent: the full packet size applies, and the connection no longer counts as pending. */
  accepted: boolean;
  /**
   * Holds a QoS 1/2 subscription (aedes asks before it downgrades a message to the subscription's QoS, so
   * the message's own QoS alone does not say whether this delivery must not be lost).
   */
  keepsQos: boolean;
  /** Over `clientQueueBytes`: live QoS 0 messages are being dropped until the client catches up. */
  dropping: boolean;
  closing: boolean;
  dropped: number;
}

/** true at most once per `ms`: a flood of refused connections must not flood the log (an SD card) too. */
function warnOncePer(ms: number): () => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = Date.now();
    if (now - last < ms) return false;
    last = now;
    return true;
  };
}

/**
 * A QoS 0, non-retained in-process publish. aedes hands such a message to every matching subscriber
 * synchronously (its socket write included) but calls back only after each subscriber's write has gone
 * through a `setImmediate`: waiting for that would hold the publisher (a light's command queue, the
 * switch → bulb path) for an event-loop turn with nothing left to learn, as QoS 0 has no acknowledgement
 * [MQTT-4.3.1]. The publish settles as soon as aedes has taken the message; an error aedes reports at once
 * (a topic with too many levels) still rejects it, and a later one is logged.
 */
function publishAtMostOnce(
  aedes: Aedes,
  packet: Parameters<Aedes['publish']>[0],
  log: BrokerOptions['log'],
): Promise<void> {
  let settled = false;
  let failure: Error | null = null;
  aedes.publish(packet, (err) => {
    if (!err) return;
    if (settled) log.debug({ topic: packet.topic, err: err.message }, 'mqtt in-process publish failed');
    else failure = err;
  });
  settled = true;
  return failure ? Promise.reject(failure) : Promise.resolve();
}

/** aedes.subscribe with MQTT's delivery rules; retained messages matching the filter are delivered first. */
async function subscribeInProcess(
  aedes: Aedes,
  filter: string,
  handler: (msg: MqttMessage) => void,
): Promise<() => Promise<void>> {
  const deliver = (packet: AedesPublishPacket, done: () => void): void => {
    // Live messages reach subscribers with retain=false [MQTT-3.3.1-9]; `$` topics skip `#`/`+` [MQTT-4.7.2-1].
    if (!hidesDollarTopic(filter, packet.topic)) {
      handler({ topic: packet.topic, payload: asBuffer(packet.payload), retain: false });
    }
    done();
  };
  await new Promise<void>((resolve, reject) =>
    aedes.subscribe(filter, deliver, (err?: Error) => (err ? reject(err) : resolve())),
  );
  // [MQTT-3.3.1-6]: a new subscription receives the retained messages that match it.
  for await (const retained of retainedStore(aedes).createRetainedStreamCombi([filter])) {
    if (hidesDollarTopic(filter, retained.topic)) continue;
    handler({ topic: retained.topic, payload: asBuffer(retained.payload), retain: true });
  }
  return () => new Promise<void>((resolve) => aedes.unsubscribe(filter, deliver, () => resolve()));
}

/** aedes keeps its connected clients by id on `aedes.clients`; its typings omit the field. */
function connectedClients(aedes: Aedes): Record<string, Client> {
  return (aedes as unknown as { clients: Record<string, Client> }).clients;
}

/** A client's granted subscriptions, keyed by filter; aedes' typings omit the field. */
function subscriptionsOf(client: Client): Record<string, unknown> {
  return (client as unknown as { subscriptions: Record<string, unknown> }).subscriptions ?? {};
}

/** aedes keeps its persistence (default in-memory) on `aedes.persistence`; its typings omit the field. */
interface RetainedStore {
  createRetainedStreamCombi(patterns: string[]): AsyncIterable<AedesPublishPacket>;
}
function retainedStore(aedes: Aedes): RetainedStore {
  return (aedes as unknown as { persistence: RetainedStore }).persistence;
}

function asBuffer(payload: string | Buffer): Buffer {
  return typeof payload === 'string' ? Buffer.from(payload) : payload;
}
