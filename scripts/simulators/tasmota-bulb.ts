/**
 * A Tasmota dimmable bulb (docs/mqtt-devices.md#tasmota-and-shelly): listens on `cmnd/<topic>/#`, on its
 * group topic `cmnd/<GroupTopic>/#` (`tasmotas` unless set) and on its fallback topic
 * `cmnd/<client id>_fb/#` (client id `DVES_<topic>`), as Tasmota does; answers POWER / Dimmer / STATE
 * on `stat/<topic>/RESULT` (plus `stat/<topic>/POWER`), LWT `tele/<topic>/LWT` Online/Offline retained.
 * `press()` sends a detached button action like a Tasmota with SetOption73. With `relay: true` it is a plain
 * relay (a Sonoff Basic): no light, so `Dimmer` is an unknown command and its state carries no Dimmer.
 * With `colour: true` it is an RGBCW bulb (`lt_st` 5): `CT` 153–500, `HSBColor h,s,b` and `Color RRGGBB`, and
 * its RESULT carries `CT`, `Color` (`RRGGBBCCWW`: RGB dark in white mode) and `HSBColor`.
 */
import { hexToRgb, hsToRgb, rgbToHex, rgbToHs } from '../../drivers/lighting/index.ts';
import {
  answer,
  type ColourCommandKind,
  connected,
  connectSim,
  extend,
  type SimDevice,
  type SimOptions,
  simDevice,
} from './common.ts';

export interface TasmotaBulb extends SimDevice {
  readonly power: boolean;
  readonly dimmer: number;
  /** Colour bulbs: `CT`, the hue/saturation shown and whether it shows colour or white. */
  readonly colour: { ct: number; hue: number; sat: number; mode: 'ct' | 'rgb' };
  press(button: number, action: 'SINGLE' | 'DOUBLE' | 'HOLD'): Promise<void>;
  /** The colour commands the bulb received (`CT` → `ct`; `HSBColor`, `Color` → `xy`), oldest first. */
  readonly colourCommands: ColourCommandKind[];
}

/** Tasmota's own discovery message (Tasmota ≥ 9.2, SetOption19 0) for a single-channel dimmer with a detached button. */
function discoveryConfig(topic: string, mac: string, ltSt = 1) {
  return {
    dn: 'Tasmota',
    fn: [`Bulb ${topic}`, null, null, null, null, null, null, null],
    hn: `tasmota-${topic}`,
    mac,
    md: 'Generic',
    ofln: 'Offline',
    onln: 'Online',
    state: ['OFF', 'ON', 'TOGGLE', 'HOLD'],
    sw: '13.1.0',
    t: topic,
    ft: '%prefix%/%topic%/',
    tp: ['cmnd', 'stat', 'tele'],
    rl: [2, 0, 0, 0, 0, 0, 0, 0],
    swc: [-1, -1, -1, -1, -1, -1, -1, -1],
    btn: [1, 0, 0, 0, 0, 0, 0, 0],
    so: {
      '4': 0,
      '11': 0,
      '13': 0,
      '17': 0,
      '20': 0,
      '30': 0,
      '68': 0,
      '73': 1,
      '82': 0,
      '114': 0,
      '117': 0,
    },
    lk: 1,
    lt_st: ltSt,
    ver: 1,
  };
}

export async function startTasmotaBulb(
  opts: SimOptions & {
    topic: string /** Publish Tasmota's own discovery config (retained). */;
    discovery?: boolean;
    /** A relay without a light: on/off only. */
    relay?: boolean;
    /** An RGBCW bulb. */
    colour?: boolean;
    /** Tasmota's GroupTopic1 (default `tasmotas`, as shipped). */
    groupTopic?: string;
    /** Already switched on (at the wall, by its own app) when it connects, at this Dimmer (1–100). */
    onAt?: number;
  },
): Promise<TasmotaBulb> {
  const t = opts.topic;
  const clientId = `DVES_${t}`;
  const client = connectSim(opts, clientId, { topic: `tele/${t}/LWT`, payload: 'Offline', retain: true });
  const sim = simDevice(client);
  let power = opts.onAt !== undefined;
  let dimmer = opts.onAt ?? 100;
  const colour = { ct: 370, hue: 0, sat: 0, mode: 'ct' as 'ct' | 'rgb' };
  const colourCommands: ColourCommandKind[] = [];
  const colourState = () => {
    const rgb = rgbToHex(hsToRgb(colour.hue, colour.sat)).slice(1).toUpperCase();
    const white = Math.round((dimmer * 255) / 100)
      .toString(16)
      .padStart(2, '0')
      .toUpperCase();
    return {
      CT: colour.ct,
      Color: colour.mode === 'rgb' ? `${rgb}0000` : `000000${white}${white}`,
      HSBColor: `${colour.hue},${colour.sat},${dimmer}`,
    };
  };
  const publishState = async () => {
    const state = JSON.stringify(
      opts.relay
        ? { POWER: power ? 'ON' : 'OFF' }
        : { POWER: power ? 'ON' : 'OFF', Dimmer: dimmer, ...(opts.colour ? colourState() : {}) },
    );
    await client.publishAsync(`stat/${t}/RESULT`, state);
    await client.publishAsync(`stat/${t}/POWER`, power ? 'ON' : 'OFF');
  };
  client.on('connect', () => {
    client.subscribe([`cmnd/${t}/#`, `cmnd/${opts.groupTopic ?? 'tasmotas'}/#`, `cmnd/${clientId}_fb/#`]);
    client.publish(`tele/${t}/LWT`, 'Online', { retain: true });
    if (opts.discovery) {
      const mac = Buffer.from(t).toString('hex').padEnd(12, '0').slice(0, 12).toUpperCase();
      client.publish(
        `tasmota/discovery/${mac}/config`,
        JSON.stringify(discoveryConfig(t, mac, opts.colour ? 5 : 1)),
        {
          retain: true,
        },
      );
    }
  });
  client.on('message', (topic, payload, packet) => {
    // `cmnd/<topic | group topic | client id_fb>/<Command>`
    const command = (topic.split('/')[2] ?? '').toUpperCase();
    const arg = payload.toString().trim().toUpperCase();
    sim.record({ topic, payload: payload.toString(), retain: packet.retain });
    if (opts.colour && arg !== '' && command === 'CT') colourCommands.push('ct');
    if (opts.colour && arg !== '' && (command === 'HSBCOLOR' || command === 'COLOR'))
      colourCommands.push('xy');
    if (command === 'POWER') {
      if (arg === 'ON' || arg === '1') power = true;
      else if (arg === 'OFF' || arg === '0') power = false;
      else if (arg === 'TOGGLE' || arg === '2') power = !power;
    } else if (command === 'DIMMER' && opts.relay) {
      answer(client.publishAsync(`stat/${t}/RESULT`, JSON.stringify({ Command: 'Unknown' })));
      return;
    } else if (command === 'DIMMER' && arg !== '') {
      const n = Number(arg);
      if (!Number.isInteger(n) || n < 0 || n > 100) return;
      dimmer = n;
      power = n > 0; // Tasmota: setting the dimmer switches the light (SetOption20 0)
    } else if (opts.colour && command === 'CT' && arg !== '') {
      const n = Number(arg);
      if (!Number.isInteger(n) || n < 153 || n > 500) return;
      Object.assign(colour, { ct: n, mode: 'ct' });
    } else if (opts.colour && command === 'HSBCOLOR' && arg !== '') {
      const [h, s, b] = arg.split(',').map(Number);
      if (![h, s, b].every((n) => Number.isFinite(n))) return;
      Object.assign(colour, { hue: h, sat: s, mode: 'rgb' });
      dimmer = b as number;
      power = (b as number) > 0;
    } else if (opts.colour && command === 'COLOR' && arg !== '') {
      const rgb = hexToRgb(arg.replace(/^#/, '').slice(0, 6));
      if (!rgb) return;
      Object.assign(colour, { ...rgbToHs(rgb), mode: 'rgb' });
      power = true;
    } else if (command !== 'STATE' && command !== 'DIMMER') return;
    answer(publishState());
  });
  await connected(client);
  return extend(sim, {
    get power() {
      return power;
    },
    get dimmer() {
      return dimmer;
    },
    get colour() {
      return { ...colour };
    },
    colourCommands,
    async press(button: number, action: 'SINGLE' | 'DOUBLE' | 'HOLD') {
      await client.publishAsync(
        `stat/${t}/RESULT`,
        JSON.stringify({ [`Button${button}`]: { Action: action } }),
      );
    },
  });
}
