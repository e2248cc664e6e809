/**
 * The link to the hub's own broker: `ctx.mqtt` of the plugin that registered the driver. In-process
 * publishes skip the socket (and the ACL hooks: the hub owns its broker). With the core in external
 * mode `onConnect` fires after every reconnection, which is when the driver resyncs.
 */
import type { MqttApi } from '../../core/mqtt/types.ts';
import type { MessageHandler, MqttLink } from './link.ts';

export function inProcessLink(mqtt: MqttApi): MqttLink {
  let running = false;
  const listeners: Array<(connected: boolean) => void> = [];
  const subs = new Set<() => Promise<void>>();
  return {
    get connected() {
      return running;
    },
    async start() {
      running = true;
      mqtt.onConnect(() => {
        if (running) for (const l of listeners) l(true);
      });
    },
    async stop() {
      running = false;
      await Promise.all([...subs].map((u) => u()));
      subs.clear();
      for (const l of listeners) l(false);
    },
    async publish(topic, payload) {
      if (!running) throw new Error('mqtt link is stopped');
      await mqtt.publish(topic, payload, { qos: 0, retain: false });
    },
    async subscribe(filter, handler: MessageHandler) {
      const remove = await mqtt.subscribe(filter, (m) => {
        if (running) handler(m.topic, m.payload, m.retain);
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
