/**
 * Tasmota (docs/mqtt-devices.md#tasmota-and-shelly): `cmnd/<topic>/POWER|Dimmer`, answers on `stat/<topic>/RESULT` (and
 * `stat/<topic>/POWER`), telemetry on `tele/<topic>/STATE`, presence on `tele/<topic>/LWT`. Dimmer is
 * 0..100 and setting it switches the light on (`stat/<topic>/POWER` duplicates RESULT and is ignored). Buttons and switches with detached actions report
 * `{"Button1":{"Action":"SINGLE"}}` / `{"Switch1":{"Action":"ON"}}` in RESULT.
 */
import {
  briToPercent,
  hsToXy,
  type LightColour,
  mirekToTasmotaCt,
  percentToBri,
  tasmotaColorToXy,
  tasmotaWhiteLit,
  WHITE_XY,
  xyToHs,
} from '../../lighting/index.ts';
import { jsonObject, onOff, optNumber, PayloadError, text } from '../payload.ts';
import { anyReading, tasmotaReadings } from './readings.ts';
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

/**
 * `CT` (153–500), `Color` (`RRGGBB[WW[WW]]` or decimals) and `HSBColor` (`h,s,b`). A light whose RGB
 * channels are dark shows white (CT); otherwise it shows its colour.
 */
function tasmotaColour(obj: Record<string, unknown>): LightColour {
  const out: LightColour = {};
  if (typeof obj.CT === 'number' && Number.isFinite(obj.CT)) {
    out.ct = Math.round(obj.CT);
    out.colormode = 'ct';
  }
  if (typeof obj.Color === 'string') {
    const xy = tasmotaColorToXy(obj.Color);
    if (xy) {
      out.xy = xy;
      out.colormode = 'xy';
    } else if (out.ct !== undefined) out.colormode = 'ct';
    else if (tasmotaWhiteLit(obj.Color)) {
      // an RGBW light (no CT) lit by its white LED alone shows white
      out.xy = WHITE_XY;
      out.colormode = 'xy';
    }
  } else if (typeof obj.HSBColor === 'string') {
    const [h, s] = obj.HSBColor.split(',').map(Number);
    if (Number.isFinite(h) && Number.isFinite(s) && (s as number) > 0) {
      out.xy = hsToXy(h as number, s as number);
      if (out.ct === undefined) out.colormode = 'xy';
    }
  }
  return out;
}

export const tasmota: Profile = {
  // `stat/<topic>/POWER` repeats what RESULT already said: listening to both would report twice.
  topics: (d) => [
    `stat/${d.address}/RESULT`,
    `tele/${d.address}/STATE`,
    `tele/${d.address}/LWT`,
    ...(d.kind === 'sensor' ? [`tele/${d.address}/SENSOR`] : []),
  ],

  command(d, level) {
    const topic = `cmnd/${d.address}`;
    if (!level.on) return [{ topic: `${topic}/POWER`, payload: 'OFF' }];
    // bri 1 becomes Dimmer 1, never 0 (which Tasmota treats as off).
    if (d.kind === 'dimmable') {
      const dimmer = briToPercent(level.bri);
      // HSBColor sets colour and level in one command; CT then Dimmer for white
      if (level.colormode === 'xy' && level.xy) {
        const { hue, sat } = xyToHs(level.xy);
        return [{ topic: `${topic}/HSBColor`, payload: `${hue},${sat},${dimmer}` }];
      }
      const out = [];
      if (level.colormode === 'ct' && level.ct !== undefined)
        out.push({ topic: `${topic}/CT`, payload: String(mirekToTasmotaCt(level.ct)) });
      out.push({ topic: `${topic}/Dimmer`, payload: String(dimmer) });
      return out;
    }
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
    if (topic === `tele/${d.address}/SENSOR`) {
      const readings = tasmotaReadings(obj);
      return anyReading(readings) ? [{ type: 'readings', readings }] : [];
    }
    const out = events(obj);
    if (d.kind === 'sensor') return out;
    const on = onOff(obj.POWER ?? obj.POWER1, 'POWER');
    const dimmer = optNumber(obj, 'Dimmer');
    const colour = tasmotaColour(obj);
    if (on !== undefined || dimmer !== undefined || Object.keys(colour).length) {
      const state: Inbound = { type: 'state', ...colour };
      if (on !== undefined) state.on = on;
      if (dimmer !== undefined) state.bri = percentToBri(dimmer);
      out.push(state);
    }
    return out;
  },
};
