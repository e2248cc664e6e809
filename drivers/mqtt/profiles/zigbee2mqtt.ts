/**
 * zigbee2mqtt (docs/mqtt-devices.md#zigbee2mqtt): state JSON on `<base>/<name>`, commands on `<base>/<name>/set`, reads on
 * `<base>/<name>/get`, presence on `<base>/<name>/availability`. Brightness is 0..254 on the wire.
 */
import { briToLevel254, level254ToBri } from '../../lighting/index.ts';
import { jsonObject, onOff, optNumber, optString, PayloadError, text } from '../payload.ts';
import type { Inbound, Profile } from './types.ts';

/** `{"state":"online"}` (zigbee2mqtt ≥ 1.x JSON availability) or the legacy plain `online`/`offline`. */
export function z2mAvailability(payload: Buffer): boolean {
  const s = text(payload).trim();
  const value = s.startsWith('{') ? optString(jsonObject(payload), 'state') : s;
  if (value === 'online') return true;
  if (value === 'offline') return false;
  throw new PayloadError('availability is neither online nor offline');
}

export const zigbee2mqtt: Profile = {
  topics: (d) => [d.address, `${d.address}/availability`],

  command(d, level) {
    const body: Record<string, unknown> = { state: level.on ? 'ON' : 'OFF' };
    // z2m device pages: brightness 0..254; bri 1 stays 1 (never off), 255 becomes 254 (full).
    if (level.on && d.kind === 'dimmable') body.brightness = briToLevel254(level.bri);
    return [{ topic: `${d.address}/set`, payload: JSON.stringify(body) }];
  },

  query(d) {
    if (d.kind === 'sensor') return [];
    const body = d.kind === 'dimmable' ? { state: '', brightness: '' } : { state: '' };
    return [{ topic: `${d.address}/get`, payload: JSON.stringify(body) }];
  },

  parse(d, topic, payload) {
    if (topic !== d.address) return [{ type: 'availability', online: z2mAvailability(payload) }];
    const obj = jsonObject(payload);
    const out: Inbound[] = [];
    // Buttons publish `action`; zigbee2mqtt then clears it with an empty string, which is no event.
    const action = optString(obj, 'action');
    if (action) out.push({ type: 'event', event: action });
    if (d.kind === 'sensor') return out;
    const on = onOff(obj.state, 'state');
    const level = optNumber(obj, 'brightness');
    if (on !== undefined || level !== undefined) {
      const state: Inbound = { type: 'state' };
      if (on !== undefined) state.on = on;
      if (level !== undefined) state.bri = level254ToBri(level);
      out.push(state);
    }
    return out;
  },
};
