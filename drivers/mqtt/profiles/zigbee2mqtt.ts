/**
 * zigbee2mqtt (docs/mqtt-devices.md#zigbee2mqtt): state JSON on `<base>/<name>`, commands on `<base>/<name>/set`, reads on
 * `<base>/<name>/get`, presence on `<base>/<name>/availability`. Brightness is 0..254 on the wire.
 */
import { briToLevel254, hsToXy, type LightColour, level254ToBri, type Xy } from '../../lighting/index.ts';
import { jsonObject, onOff, optNumber, optString, PayloadError, text } from '../payload.ts';
import { anyReading, z2mReadings } from './readings.ts';
import type { Inbound, Profile } from './types.ts';

/** `{"state":"online"}` (zigbee2mqtt ≥ 1.x JSON availability) or the legacy plain `online`/`offline`. */
export function z2mAvailability(payload: Buffer): boolean {
  const s = text(payload).trim();
  const value = s.startsWith('{') ? optString(jsonObject(payload), 'state') : s;
  if (value === 'online') return true;
  if (value === 'offline') return false;
  throw new PayloadError('availability is neither online nor offline');
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * A z2m state's colour: `color_mode` (`color_temp`, `xy`, `hs`), `color_temp` in mireds, `color` with
 * `x`/`y` and/or `hue`/`saturation`. Values that are not numbers are ignored, not guessed at.
 */
function z2mColour(obj: Record<string, unknown>): LightColour {
  const out: LightColour = {};
  if (num(obj.color_temp)) out.ct = Math.round(obj.color_temp);
  const c = obj.color as Record<string, unknown> | undefined;
  let xy: Xy | undefined;
  if (c && typeof c === 'object') {
    if (num(c.x) && num(c.y) && c.x >= 0 && c.x <= 1 && c.y >= 0 && c.y <= 1) xy = [c.x, c.y];
    else if (num(c.hue) && num(c.saturation)) xy = hsToXy(c.hue, c.saturation);
  }
  if (xy) out.xy = xy;
  const mode = obj.color_mode;
  if (mode === 'color_temp') out.colormode = 'ct';
  else if (mode === 'xy' || mode === 'hs') out.colormode = 'xy';
  return out;
}

export const zigbee2mqtt: Profile = {
  topics: (d) => [d.address, `${d.address}/availability`],

  command(d, level) {
    const body: Record<string, unknown> = { state: level.on ? 'ON' : 'OFF' };
    // z2m device pages: brightness 0..254; bri 1 stays 1 (never off), 255 becomes 254 (full).
    if (level.on && d.kind === 'dimmable') body.brightness = briToLevel254(level.bri);
    // z2m: color_temp in mireds, color as {x, y}; transition in seconds
    if (level.on && level.colormode === 'ct' && level.ct !== undefined) body.color_temp = level.ct;
    else if (level.on && level.colormode === 'xy' && level.xy)
      body.color = { x: level.xy[0], y: level.xy[1] };
    if (level.transition !== undefined) body.transition = level.transition;
    return [{ topic: `${d.address}/set`, payload: JSON.stringify(body) }];
  },

  query(d) {
    if (d.kind === 'sensor') return [];
    const body: Record<string, string> =
      d.kind === 'dimmable' ? { state: '', brightness: '' } : { state: '' };
    if (d.capabilities?.ct) body.color_temp = '';
    if (d.capabilities?.xy) body.color = '';
    return [{ topic: `${d.address}/get`, payload: JSON.stringify(body) }];
  },

  parse(d, topic, payload) {
    if (topic !== d.address) return [{ type: 'availability', online: z2mAvailability(payload) }];
    const obj = jsonObject(payload);
    const out: Inbound[] = [];
    // Readings first: a condition on this message's action sees this message's readings.
    if (d.kind === 'sensor') {
      const readings = z2mReadings(obj);
      if (anyReading(readings)) out.push({ type: 'readings', readings });
    }
    // Buttons publish `action`; zigbee2mqtt then clears it with an empty string, which is no event.
    const action = optString(obj, 'action');
    if (action) out.push({ type: 'event', event: action });
    if (d.kind === 'sensor') return out;
    const on = onOff(obj.state, 'state');
    const level = optNumber(obj, 'brightness');
    const colour = z2mColour(obj);
    if (on !== undefined || level !== undefined || Object.keys(colour).length) {
      const state: Inbound = { type: 'state', ...colour };
      if (on !== undefined) state.on = on;
      if (level !== undefined) state.bri = level254ToBri(level);
      out.push(state);
    }
    return out;
  },
};
