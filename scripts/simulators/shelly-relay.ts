/**
 * A Shelly Plus 1 relay (Gen2, docs/mqtt-devices.md#tasmota-and-shelly): JSON-RPC on `<prefix>/rpc` (`Switch.Set`,
 * `Switch.GetStatus`), answers on `<src>/rpc`, `NotifyStatus` on `<prefix>/events/rpc`, input presses as
 * `NotifyEvent`, `<prefix>/online` true/false as retained last will.
 */
import {
  answer,
  connected,
  connectSim,
  extend,
  type SimDevice,
  type SimOptions,
  simDevice,
} from './common.ts';

export interface ShellyRelay extends SimDevice {
  readonly output: boolean;
  press(event: 'single_push' | 'double_push' | 'long_push'): Promise<void>;
}

export async function startShellyRelay(opts: SimOptions & { prefix: string }): Promise<ShellyRelay> {
  const p = opts.prefix;
  const client = connectSim(opts, p, { topic: `${p}/online`, payload: 'false', retain: true });
  const sim = simDevice(client);
  let output = false;
  const status = () => ({ id: 0, source: 'MQTT', output, apower: output ? 8.4 : 0, voltage: 231.2 });
  const notify = (method: string, params: unknown) =>
    client.publishAsync(`${p}/events/rpc`, JSON.stringify({ src: p, dst: `${p}/events`, method, params }));

  client.on('connect', () => {
    client.subscribe(`${p}/rpc`);
    client.publish(`${p}/online`, 'true', { retain: true });
  });
  client.on('message', (topic, payload, packet) => {
    sim.record({ topic, payload: payload.toString(), retain: packet.retain });
    let req: { id?: unknown; src?: unknown; method?: unknown; params?: { id?: unknown; on?: unknown } };
    try {
      req = JSON.parse(payload.toString());
    } catch {
      return;
    }
    if (typeof req.src !== 'string') return;
    const reply = (result: unknown) =>
      client.publishAsync(`${req.src}/rpc`, JSON.stringify({ id: req.id, src: p, dst: req.src, result }));
    if (req.method === 'Switch.Set' && typeof req.params?.on === 'boolean') {
      const was_on = output;
      output = req.params.on;
      answer(reply({ was_on }));
      answer(notify('NotifyStatus', { ts: Date.now() / 1000, 'switch:0': { id: 0, output } }));
    } else if (req.method === 'Switch.GetStatus') answer(reply(status()));
  });
  await connected(client);
  return extend(sim, {
    get output() {
      return output;
    },
    async press(event: 'single_push' | 'double_push' | 'long_push') {
      await notify('NotifyEvent', {
        ts: Date.now() / 1000,
        events: [{ component: 'input:0', id: 0, event, ts: Date.now() / 1000 }],
      });
    },
  });
}
