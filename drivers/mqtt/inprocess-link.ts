/**
 * The link to the hub's own broker: `ctx.mqtt` of the plugin that registered the driver. In-process
 * publishes skip the socket (and the ACL hooks: the hub owns its broker). The embedded broker is always
 * there; with the core in external mode `onConnect` fires after every reconnection, which is when the
 * driver resyncs.
 */
import type { MqttApi } from '../../core/sdk.ts';
import type { MessageHandler, MqttLink } from './link.ts';

/**
 * One `onConnect` registration per plugin, shared by every link it creates (`MqttApi` has no way to
 * remove a handler, and driver instances come and go).
 */
export interface ConnectFanout {
  add(listener: () => void): () => void;
}

export function connectFanout(mqtt: MqttApi): ConnectFanout {
  const listeners = new Set<() => void>();
  mqtt.onConnect(() => {
    for (const l of listeners) l();
  });
  return {
    add(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function inProcessLink(mqtt: MqttApi, fanout: ConnectFanout): MqttLink {
  let running = false;
  // The driver subscribes before start(); the broker replays retained messages (discovery lists, device
  // states) during that subscribe, so only stop() ends delivery — not "not started yet".
  let stopped = false;
  let removeListener: (() => void) | null = null;
  const listeners: Array<(connected: boolean) => void> = [];
  const emit = (up: boolean) => {
    for (const l of listeners) l(up);
  };
  const subs = new Set<() => Promise<void>>();
  return {
    get connected() {
      return running;
    },
    async start() {
      running = true;
      stopped = false;
      removeListener = fanout.add(() => {
        if (running) emit(true);
      });
      emit(true);
    },
    async stop() {
      running = false;
      stopped = true;
      removeListener?.();
      removeListener = null;
      await Promise.all([...subs].map((u) => u()));
      subs.clear();
      emit(false);
    },
    async publish(topic, payload) {
      if (!running) throw new Error('mqtt link is stopped');
      await mqtt.publish(topic, payload, { qos: 0, retain: false });
    },
    async subscribe(filter, handler: MessageHandler) {
      const remove = await mqtt.subscribe(filter, (m) => {
        if (!stopped) handler(m.topic, m.payload, m.retain);
      });
      const unsubscribe = async () => {
        subs.delete(unsubscribe);
        await remove();
      };
      subs.add(unsubscribe);
      return unsubscribe;
    },
    onStatus(listener) {
      listeners.push(listener);
    },
  };
}
