/**
 * Tasmota (docs/mqtt-devices.md#tasmota-and-shelly): `cmnd/<topic>/POWER|Dimmer`, answers on `stat/<topic>/RESULT` (and
 * `stat/<topic>/POWER`), telemetry on `tele/<topic>/STATE`, presence on `tele/<topic>/LWT`. Dimmer is
 * 0..100 and setting it switches the light on (`stat/<topic>/POWER` duplicates RESULT and is ignored). Buttons and switches with detached actions report
 * `{"Button1":{"Action":"SINGLE"}}` / `{"Switch1":{"Action":"ON"}}` in RESULT.
 */
import { briToPercent, percentToBri } from '../../lighting/index.ts';
import { jsonObject, onOff, optNumber, PayloadError, text } from '../payload.ts';
import type { Inbound, Profile } from './types.ts';

const INPUT = /^(Button|Switch)(\d{1,2})$/;

function events(obj: Record<string, unknown>): Inbound[] {
  const out: Inbound[] = [];
  for (const [key, value] of Object.entries(obj)) {
    const m = INPUT.exec(key);
    if (!m || typeof value !== 'object' || value === null) continue;
    const action = (value as Record<string, unknown>).Action;
    if (typeof action !== 'string' || action === '') throw new PayloadError(`${key}.Action is not a string`);
    out.push({ type: 'event', event: `${m[1]!.toLowerCase()}${m[2]}-${action.toLowerCase()}` });
  }
  return out;
}

export const tasmota: Profile = {
  // `stat/<topic>/POWER` repeats what RESULT already said: listening to both would report twice.
  topics: (d) => [`stat/${d.address}/RESULT`, `tele/${d.address}/STATE`, `tele/${d.address}/LWT`],

  command(d, level) {
    const topic = `cmnd/${d.address}`;
    if (!level.on) return [{ topic: `${topic}/POWER`, payload: 'OFF' }];
    // bri 1 becomes Dimmer 1, never 0 (which Tasmota treats as off).
    if (d.kind === 'dimmable')
      return [{ topic: `${topic}/Dimmer`, payload: String(briToPercent(level.bri)) }];
    return [{ topic: `${topic}/POWER`, payload: 'ON' }];
  },

  // An empty payload is a query; STATE answers on RESULT with POWER and Dimmer.
  query: (d) => (d.kind === 'sensor' ? [] : [{ topic: `cmnd/${d.address}/STATE`, payload: '' }]),

  parse(d, topic, payload) {
    if (topic === `tele/${d.address}/LWT`) {
      const s = text(payload);
      if (s === 'Online') return [{ type: 'availability', online: true }];
      if (s === 'Offline') return [{ type: 'availability', online: false }];
      throw new PayloadError('LWT is neither Online nor Offline');
    }
    const obj = jsonObject(payload);
    const out = events(obj);
    if (d.kind === 'sensor') return out;
    const on = onOff(obj.POWER ?? obj.POWER1, 'POWER');
    const dimmer = optNumber(obj, 'Dimmer');
    if (on !== undefined || dimmer !== undefined) {
      const state: Inbound = { type: 'state' };
      if (on !== undefined) state.on = on;
      if (dimmer !== undefined) state.bri = percentToBri(dimmer);
      out.push(state);
    }
    return out;
  },
};
