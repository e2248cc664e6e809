/**
 * A Shelly RGBW2 (Gen1, docs/mqtt-devices.md#colour-on-the-wire) in one of its two device modes. Colour
 * mode: one channel `shellies/<id>/color/0/set` takes `{"turn","red","green","blue","white","gain"}` (no
 * colour temperature), status on `…/color/0/status`. White mode: four dimmable channels
 * `…/white/<n>/set` `{"turn","brightness"}`, status on `…/white/<n>/status`. `…/command` `update`
 * republishes, `…/online` is the last will. `appSet` changes the colour as the Shelly app would.
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

export interface Rgbw2Colour {
  ison: boolean;
  mode: 'color';
  red: number;
  green: number;
  blue: number;
  white: number;
  gain: number;
}

export interface Rgbw2White {
  ison: boolean;
  mode: 'white';
  brightness: number;
}

export interface ShellyRgbw2 extends SimDevice {
  readonly colour: Rgbw2Colour;
  readonly whites: Rgbw2White[];
  /** The Shelly app (or a button) changes the colour channel: the device reports it on its own. */
  appSet(change: Partial<Omit<Rgbw2Colour, 'mode'>>): Promise<void>;
}

const channel = (v: unknown, max: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.min(max, Math.round(v))) : undefined;

export async function startShellyRgbw2(
  opts: SimOptions & { id: string; mode: 'color' | 'white' },
): Promise<ShellyRgbw2> {
  const a = `shellies/${opts.id}`;
  const client = connectSim(opts, opts.id, { topic: `${a}/online`, payload: 'false', retain: true });
  const sim = simDevice(client);
  const colour: Rgbw2Colour = { ison: false, mode: 'color', red: 255, green: 0, blue: 0, white: 0, gain: 50 };
  const whites: Rgbw2White[] = [0, 1, 2, 3].map(() => ({ ison: false, mode: 'white', brightness: 50 }));
  const publishAll = () =>
    opts.mode === 'color'
      ? client.publishAsync(`${a}/color/0/status`, JSON.stringify(colour))
      : Promise.all(whites.map((w, n) => client.publishAsync(`${a}/white/${n}/status`, JSON.stringify(w))));
  client.on('connect', () => {
    client.subscribe(
      opts.mode === 'color' ? [`${a}/color/0/set`, `${a}/command`] : [`${a}/white/+/set`, `${a}/command`],
    );
    client.publish(`${a}/online`, 'true', { retain: true });
  });
  client.on('message', (topic, payload, packet) => {
    const text = payload.toString();
    sim.record({ topic, payload: text, retain: packet.retain });
    if (topic === `${a}/command`) {
      if (text === 'update') answer(publishAll());
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const on = body.turn === 'on' ? true : body.turn === 'off' ? false : undefined;
    if (topic === `${a}/color/0/set`) {
      // the device mode is a setting: `mode` and `temp` in a command change nothing
      for (const k of ['red', 'green', 'blue', 'white'] as const)
        colour[k] = channel(body[k], 255) ?? colour[k];
      colour.gain = channel(body.gain, 100) ?? colour.gain;
      if (on !== undefined) colour.ison = on;
      answer(client.publishAsync(`${a}/color/0/status`, JSON.stringify(colour)));
      return;
    }
    const m = /\/white\/([0-3])\/set$/.exec(topic);
    const w = m ? whites[Number(m[1])] : undefined;
    if (!w) return;
    w.brightness = channel(body.brightness, 100) ?? w.brightness;
    if (on !== undefined) w.ison = on;
    answer(client.publishAsync(`${a}/white/${m![1]}/status`, JSON.stringify(w)));
  });
  await connected(client);
  return extend(sim, {
    get colour() {
      return { ...colour };
    },
    get whites() {
      return whites.map((w) => ({ ...w }));
    },
    async appSet(change: Partial<Omit<Rgbw2Colour, 'mode'>>) {
      Object.assign(colour, change);
      await client.publishAsync(`${a}/color/0/status`, JSON.stringify(colour));
    },
  });
}
