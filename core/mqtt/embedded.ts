import { once } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { Aedes, type AedesPublishPacket, type Client } from 'aedes';
import { createWebSocketStream, type WebSocket } from 'ws';
import { type ClientState, HookChain } from './access.ts';
import { aedesHandlers } from './aedes-handlers.ts';
import { createOwnerApi, type Transport } from './owner-api.ts';
import { hidesDollarTopic } from './topics.ts';
import type { BrokerOptions, BrokerService, MqttMessage } from './types.ts';

/** aedes in this process: TCP on opts.host:opts.port, MQTT over WebSocket via handleWebSocket(). */
export async function createEmbeddedBroker(opts: BrokerOptions): Promise<BrokerService> {
  const log = opts.log;
  const chain = new HookChain(opts.allowAnonymous, log);
  const states = new WeakMap<Client, ClientState>();
  const aedes = await Aedes.createBroker(aedesHandlers(chain, states, log));
  // Connections not yet past CONNECT are not aedes clients; stop() must still close them.
  const connections = new Set<Duplex>();
  let stopped = false;

  aedes.on('clientError', (client, err) =>
    log.debug({ clientId: client.id, err: err.message }, 'mqtt client error'),
  );
  aedes.on('connectionError', (client, err) =>
    log.debug({ clientId: client.id, err: err.message }, 'mqtt bad connection'),
  );
  aedes.on('clientDisconnect', (client) => log.debug({ clientId: client.id }, 'mqtt client disconnected'));

  const accept = (stream: Duplex): void => {
    connections.add(stream);
    stream.once('close', () => connections.delete(stream));
    aedes.handle(stream);
  };

  let server: net.Server | null = null;
  let port = 0;
  if (opts.enabled !== false) {
    server = net.createServer(accept);
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
    if (stopped) throw new Error('mqtt: the broker has stopped');
  };
  const transport: Transport = {
    mode: 'embedded',
    publish: async (topic, payload, { qos, retain }) => {
      assertRunning();
      return new Promise((resolve, reject) => {
        // aedes.publish delivers on behalf of the server: no authorizePublish for in-process publishers.
        aedes.publish({ cmd: 'publish', topic, payload, qos, retain, dup: false }, (err) =>
          err ? reject(err) : resolve(),
        );
      });
    },
    subscribe: async (filter, handler) => {
      assertRunning();
      return subscribeInProcess(aedes, filter, handler);
    },
    addHooks: (owner, hooks) => chain.add(owner, hooks),
    removeHooks: (owner) => chain.removeOwner(owner),
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
    forOwner: (owner) => createOwnerApi(transport, owner, log.child({ mqttOwner: owner })),
    handleWebSocket(socket: WebSocket) {
      if (stopped) return socket.terminate();
      accept(createWebSocketStream(socket));
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
