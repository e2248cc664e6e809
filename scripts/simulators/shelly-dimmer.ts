/**
 * A Shelly Dimmer 2 (Gen1, docs/mqtt-devices.md#tasmota-and-shelly): `shellies/<id>/light/0/set` `{"turn","brightness"}`, status
 * `{ison,brightness}` on `…/light/0/status`, `…/command` `update` republishes, `…/online` as last will,
 * presses on `…/input_event/0`.
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

export interface ShellyDimmer extends SimDevice {
  readonly ison: boolean;
  readonly brightness: number;
  press(code: 'S' | 'L' | 'SS'): Promise<void>;
}

export async function startShellyDimmer(opts: SimOptions & { id: string }): Promise<ShellyDimmer> {
  const a = `shellies/${opts.id}`;
  const client = connectSim(opts, opts.id, { topic: `${a}/online`, payload: 'false', retain: true });
  const sim = simDevice(client);
  let ison = false;
  let brightness = 50;
  let count = 0;
  const status = () =>
    client.publishAsync(`${a}/light/0/status`, JSON.stringify({ ison, brightness, mode: 'white' }));
  client.on('connect', () => {
    client.subscribe([`${a}/light/0/set`, `${a}/light/0/command`, `${a}/command`]);
    client.publish(`${a}/online`, 'true', { retain: true });
  });
  client.on('message', (topic, payload, packet) => {
    const text = payload.toString();
    sim.record({ topic, payload: text, retain: packet.retain });
    if (topic === `${a}/command` && text === 'update') return answer(status());
    if (topic === `${a}/light/0/command`) ison = text === 'on' ? true : text === 'off' ? false : ison;
    if (topic === `${a}/light/0/set`) {
      try {
        const body = JSON.parse(text) as { turn?: string; brightness?: number };
        if (typeof body.brightness === 'number') brightness = Math.max(1, Math.min(100, body.brightness));
        if (body.turn === 'on' || body.turn === 'off') ison = body.turn === 'on';
      } catch {
        return;
      }
    }
    answer(status());
  });
  await connected(client);
  return extend(sim, {
    get ison() {
      return ison;
    },
    get brightness() {
      return brightness;
    },
    async press(code: 'S' | 'L' | 'SS') {
      await client.publishAsync(`${a}/input_event/0`, JSON.stringify({ event: code, event_cnt: ++count }));
    },
  });
}
