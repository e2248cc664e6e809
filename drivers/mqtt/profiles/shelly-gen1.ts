/**
 * Shelly Gen1 (docs/mqtt-devices.md#tasmota-and-shelly): a relay is `shellies/<id>/relay/<n>` (`on`/`off`) commanded on
 * `…/relay/<n>/command`; a light/dimmer reports `{ison,brightness}` on `…/light/<n>/status` and takes
 * `{"turn":"on","brightness":0..100}` on `…/light/<n>/set`. `…/online` is the last will, `…/command`
 * `update` asks for a fresh report, `…/input_event/<n>` carries button presses.
 */
import { briToPercent, percentToBri } from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';
import { jsonObject, onOff, optBool, optNumber, optString, PayloadError, text } from '../payload.ts';
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
    if (d.kind === 'sensor') return [input, `${d.address}/online`];
    const status = d.component === 'light' ? `${base(d)}/status` : base(d);
    return [status, `${d.address}/online`, input];
  },

  command(d, level) {
    if (d.component !== 'light') return [{ topic: `${base(d)}/command`, payload: level.on ? 'on' : 'off' }];
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
    if (topic.startsWith(`${d.address}/input_event/`)) {
      const code = optString(jsonObject(payload), 'event');
      if (!code) return []; // an empty event follows every press
      const name = PRESS.get(code);
      if (!name) throw new PayloadError(`unknown input event ${code}`);
      return [{ type: 'event', event: `input${d.channel ?? 0}-${name}` }];
    }
    if (d.component !== 'light') {
      const on = onOff(text(payload), 'relay');
      return on === undefined ? [] : [{ type: 'state', on }];
    }
    const obj = jsonObject(payload);
    const state: Inbound = { type: 'state' };
    const on = optBool(obj, 'ison');
    const pct = optNumber(obj, 'brightness');
    if (on !== undefined) state.on = on;
    if (pct !== undefined) state.bri = percentToBri(pct);
    return [state];
  },
};
