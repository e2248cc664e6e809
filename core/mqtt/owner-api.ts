import type { Logger } from 'pino';
import { HearthError } from '../errors.ts';
import { assertTopicFilter, assertTopicName } from './topics.ts';
import type {
  MqttApi,
  MqttAuthHooks,
  MqttClientInfo,
  MqttListener,
  MqttMessage,
  PublishOptions,
} from './types.ts';

/** What the embedded broker and the external client both provide; forOwner() scopes it to one plugin. */
export interface Transport {
  readonly mode: 'embedded' | 'external';
  publish(topic: string, payload: Buffer, opts: Required<PublishOptions>): Promise<void>;
  /** Resolves with the function that removes this one subscription. */
  subscribe(filter: string, handler: (msg: MqttMessage) => void): Promise<() => Promise<void>>;
  addHooks(owner: string, hooks: MqttAuthHooks): void;
  removeHooks(owner: string): void;
  /** Registers a handler run after each (re)connection; returns its remover. */
  addConnectHandler(handler: () => void): () => void;
  disconnect(match: (client: MqttClientInfo) => boolean): number;
  listeners(filter: string): MqttListener[];
  retained(filter: string): Promise<MqttMessage[]>;
}

export type OwnedMqttApi = MqttApi & { dispose(): Promise<void> };

/** The MQTT API of one plugin: everything it subscribes or registers is undone by dispose(). */
export function createOwnerApi(transport: Transport, owner: string, log: Logger): OwnedMqttApi {
  const unsubscribers = new Set<() => Promise<void>>();
  const connectRemovers = new Set<() => void>();
  let disposed = false;

  const assertLive = (what: string): void => {
    if (disposed)
      throw new HearthError('mqtt_owner_stopped', `mqtt: ${what} after plugin '${owner}' stopped`);
  };

  /** A plugin's handler must not break delivery to other subscribers, even when it is async. */
  const guard =
    (filter: string, handler: (msg: MqttMessage) => void) =>
    (msg: MqttMessage): void => {
      const report = (err: unknown) =>
        log.error({ err, owner, filter, topic: msg.topic }, 'mqtt handler threw');
      try {
        const result: unknown = handler(msg);
        if (result instanceof Promise) result.catch(report);
      } catch (err) {
        report(err);
      }
    };

  return {
    mode: transport.mode,

    async publish(topic, payload, opts = {}) {
      assertTopicName(topic);
      const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
      await transport.publish(topic, body, { qos: opts.qos ?? 0, retain: opts.retain ?? false });
    },

    async subscribe(filter, handler) {
      assertLive('subscribe');
      assertTopicFilter(filter);
      const remove = await transport.subscribe(filter, guard(filter, handler));
      let removed: Promise<void> | undefined;
      const unsubscribe = (): Promise<void> => {
        removed ??= (async () => {
          unsubscribers.delete(unsubscribe);
          await remove();
        })();
        return removed;
      };
      unsubscribers.add(unsubscribe);
      // A plugin that stopped while the subscription was being set up must not keep it.
      if (disposed) await unsubscribe();
      return unsubscribe;
    },

    hooks(hooks) {
      assertLive('hooks()');
      transport.addHooks(owner, hooks);
    },

    onConnect(handler) {
      assertLive('onConnect()');
      const safe = () => {
        try {
          handler();
        } catch (err) {
          log.error({ err, owner }, 'mqtt onConnect handler threw');
        }
      };
      connectRemovers.add(transport.addConnectHandler(safe));
    },

    disconnect(match) {
      assertLive('disconnect()');
      return transport.disconnect(match);
    },

    listeners(filter) {
      assertTopicFilter(filter);
      return transport.listeners(filter);
    },

    retained(filter) {
      assertTopicFilter(filter);
      return transport.retained(filter);
    },

    async dispose() {
      disposed = true;
      transport.removeHooks(owner);
      for (const remove of connectRemovers) remove();
      connectRemovers.clear();
      await Promise.all([...unsubscribers].map((unsubscribe) => unsubscribe()));
    },
  };
}
