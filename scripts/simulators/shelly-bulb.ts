/**
 * A Shelly Bulb (Gen1 colour bulb, docs/mqtt-devices.md#colour-on-the-wire): `shellies/<id>/color/0/set`
 * takes `{"turn","mode":"white","temp","brightness"}` or `{"turn","mode":"color","red","green","blue",
 * "white","gain"}`; the status on `…/color/0/status` carries all of them; `…/command` `update` republishes,
 * `…/online` is the last will.
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

export interface ShellyBulbStatus {
  ison: boolean;
  mode: 'white' | 'color';
  temp: number;
  brightness: number;
  red: number;
  green: number;
  blue: number;
  white: number;
  gain: number;
}

export interface ShellyBulb extends SimDevice {
  readonly status: ShellyBulbStatus;
}

const channel = (v: unknown, max: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.min(max, Math.round(v))) : undefined;

export async function startShellyBulb(opts: SimOptions & { id: string }): Promise<ShellyBulb> {
  const a = `shellies/${opts.id}`;
  const client = connectSim(opts, opts.id, { topic: `${a}/online`, payload: 'false', retain: true });
  const sim = simDevice(client);
  const s: ShellyBulbStatus = {
    ison: false,
    mode: 'white',
    temp: 4000,
    brightness: 50,
    red: 255,
    green: 255,
    blue: 255,
    white: 0,
    gain: 50,
  };
  const publish = () => client.publishAsync(`${a}/color/0/status`, JSON.stringify(s));
  client.on('connect', () => {
    client.subscribe([`${a}/color/0/set`, `${a}/command`]);
    client.publish(`${a}/online`, 'true', { retain: true });
  });
  client.on('message', (topic, payload, packet) => {
    const text = payload.toString();
    sim.record({ topic, payload: text, retain: packet.retain });
    if (topic === `${a}/command` && text !== 'update') return;
    if (topic === `${a}/color/0/set`) {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      if (body.mode === 'white' || body.mode === 'color') s.mode = body.mode;
      const temp = channel(body.temp, 6500);
      if (temp !== undefined) s.temp = Math.max(3000, temp);
      for (const k of ['red', 'green', 'blue', 'white'] as const) s[k] = channel(body[k], 255) ?? s[k];
      s.gain = channel(body.gain, 100) ?? s.gain;
      s.brightness = channel(body.brightness, 100) ?? s.brightness;
      if (body.turn === 'on' || body.turn === 'off') s.ison = body.turn === 'on';
    }
    answer(publish());
  });
  await connected(client);
  return extend(sim, {
    get status() {
      return { ...s };
    },
  });
}
