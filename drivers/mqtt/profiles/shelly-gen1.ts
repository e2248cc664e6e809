/**
 * Shelly Gen1 (docs/mqtt-devices.md#tasmota-and-shelly): a relay is `shellies/<id>/relay/<n>` (`on`/`off`) commanded on
 * `…/relay/<n>/command`; a light/dimmer reports `{ison,brightness}` on `…/light/<n>/status` and takes
 * `{"turn":"on","brightness":0..100}` on `…/light/<n>/set`. `…/online` is the last will, `…/command`
 * `update` asks for a fresh report, `…/input_event/<n>` carries button presses.
 */
import {
  briToPercent,
  clamp,
  kelvinToMirek,
  type LightCommand,
  mirekToKelvin,
  percentToBri,
  SHELLY_BULB_TEMP,
  shellyRgbwToXy,
  xyToShellyRgbw,
} from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';
import { jsonObject, onOff, optBool, optNumber, optString, PayloadError, text } from '../payload.ts';
import { anyReading, SHELLY_GEN1_SENSOR_TOPICS, shellyGen1Reading } from './readings.ts';
import type { Inbound, Profile } from './types.ts';

/** Gen1 input event codes → Hearth event names (a Map: a device's `constructor` is no code). */
const PRESS = new Map([
  ['S', 'single'],
  ['SS', 'double'],
  ['SSS', 'triple'],
  ['L', 'long'],
  ['SL', 'short-long'],
  ['LS', 'long-short'],
]);

/** Components with a JSON status and `set` (a relay has plain `on`/`off`). */
const isLight = (d: MqttDevice) =>
  d.component === 'light' || d.component === 'color' || d.component === 'white';

/**
 * A Gen1 `color` channel: `mode: "white"` with `temp` (Kelvin, the Bulb's 3000–6500) and `brightness`, or
 * `mode: "color"` with `red`/`green`/`blue`/`white` 0–255 and `gain` 0–100. A level alone keeps the mode.
 */
function colourSet(level: LightCommand): Record<string, unknown> {
  const pct = briToPercent(level.bri);
  if (level.colormode === 'ct' && level.ct !== undefined) {
    const temp = clamp(mirekToKelvin(level.ct), SHELLY_BULB_TEMP.minK, SHELLY_BULB_TEMP.maxK);
    return { turn: 'on', mode: 'white', temp, brightness: pct };
  }
  if (level.colormode === 'xy' && level.xy)
    return { turn: 'on', mode: 'color', ...xyToShellyRgbw(level.xy), gain: pct };
  return { turn: 'on', gain: pct, brightness: pct };
}

const base = (d: MqttDevice) => `${d.address}/${d.component ?? 'relay'}/${d.channel ?? 0}`;

export function shellyOnline(payload: Buffer): boolean {
  const s = text(payload);
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw new PayloadError('online is neither true nor false');
}

export const shellyGen1: Profile = {
  topics(d) {
    const input = `${d.address}/input_event/${d.channel ?? 0}`;
    if (d.kind === 'sensor')
      return [
        input,
        `${d.address}/online`,
        ...SHELLY_GEN1_SENSOR_TOPICS.map((n) => `${d.address}/sensor/${n}`),
      ];
    const status = isLight(d) ? `${base(d)}/status` : base(d);
    return [status, `${d.address}/online`, input];
  },

  command(d, level) {
    if (!isLight(d)) return [{ topic: `${base(d)}/command`, payload: level.on ? 'on' : 'off' }];
    if (d.component === 'color' && level.on && d.kind === 'dimmable')
      return [{ topic: `${base(d)}/set`, payload: JSON.stringify(colourSet(level)) }];
    // A light used as on/off only (binary) keeps the dimmer's own level.
    const body = !level.on
      ? { turn: 'off' }
      : d.kind === 'dimmable'
        ? { turn: 'on', brightness: briToPercent(level.bri) }
        : { turn: 'on' };
    return [{ topic: `${base(d)}/set`, payload: JSON.stringify(body) }];
  },

  query: (d) => [{ topic: `${d.address}/command`, payload: 'update' }],

  parse(d, topic, payload) {
    if (topic === `${d.address}/online`) return [{ type: 'availability', online: shellyOnline(payload) }];
    if (topic.startsWith(`${d.address}/sensor/`)) {
      const readings = shellyGen1Reading(topic.slice(`${d.address}/sensor/`.length), text(payload));
      return anyReading(readings) ? [{ type: 'readings', readings }] : [];
    }
    if (topic.startsWith(`${d.address}/input_event/`)) {
      const code = optString(jsonObject(payload), 'event');
      if (!code) return []; // an empty event follows every press
      const name = PRESS.get(code);
      if (!name) throw new PayloadError(`unknown input event ${code}`);
      return [{ type: 'event', event: `input${d.channel ?? 0}-${name}` }];
    }
    if (!isLight(d)) {
      const on = onOff(text(payload), 'relay');
      return on === undefined ? [] : [{ type: 'state', on }];
    }
    const obj = jsonObject(payload);
    const state: Inbound = { type: 'state' };
    const on = optBool(obj, 'ison');
    if (on !== undefined) state.on = on;
    const mode = d.component === 'color' ? optString(obj, 'mode') : undefined;
    // colour mode: the level is `gain`, the colour the RGB channels; white mode: `brightness` and `temp`
    const pct = optNumber(obj, mode === 'color' ? 'gain' : 'brightness');
    if (pct !== undefined) state.bri = percentToBri(pct);
    if (mode === 'color') {
      const xy = shellyRgbwToXy(
        optNumber(obj, 'red') ?? 0,
        optNumber(obj, 'green') ?? 0,
        optNumber(obj, 'blue') ?? 0,
        optNumber(obj, 'white') ?? 0,
      );
      if (xy) Object.assign(state, { xy, colormode: 'xy' });
    } else if (mode === 'white') {
      const temp = optNumber(obj, 'temp');
      if (temp !== undefined && temp > 0) Object.assign(state, { ct: kelvinToMirek(temp), colormode: 'ct' });
    }
    return [state];
  },
};
