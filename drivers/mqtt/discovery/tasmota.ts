/**
 * Tasmota's own discovery (Tasmota ≥ 9.2, `SetOption19 0`): a retained `tasmota/discovery/<mac>/config`
 * per device with its topic (`t`), full-topic pattern (`ft`), relay types (`rl`: 1 relay, 2 light),
 * light subtype (`lt_st`: 1+ dims), buttons (`btn`, reported when `SetOption73` detaches them) and switches
 * (`swc`, with `SetOption114`). Only the default full topic `%prefix%/%topic%/` is supported. An empty
 * payload removes the device.
 */
import { type DeviceKind, type LightCapabilities, SRGB_GAMUT, TASMOTA_CT } from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';
import { jsonObject, optString, PayloadError } from '../payload.ts';

export const TASMOTA_DISCOVERY = 'tasmota/discovery/+/config';
const CONFIG = /^tasmota\/discovery\/([^/]+)\/config$/;
const DEFAULT_FULL_TOPIC = '%prefix%/%topic%/';

const flags = (v: unknown): number[] =>
  Array.isArray(v) ? v.map((x) => (typeof x === 'number' ? x : -1)) : [];

function events(c: Record<string, unknown>): string[] {
  const so = (typeof c.so === 'object' && c.so !== null ? c.so : {}) as Record<string, unknown>;
  const out: string[] = [];
  if (so['73'] === 1)
    flags(c.btn).forEach((on, i) => {
      if (on === 1) for (const a of ['single', 'double', 'hold']) out.push(`button${i + 1}-${a}`);
    });
  if (so['114'] === 1)
    flags(c.swc).forEach((mode, i) => {
      if (mode >= 0) for (const a of ['on', 'off', 'toggle', 'hold']) out.push(`switch${i + 1}-${a}`);
    });
  return out;
}

/** Device (or removal) a message on `tasmota/discovery/<mac>/config` means; null when not a config topic. */
export function parseTasmotaConfig(
  topic: string,
  payload: Buffer,
  known: Map<string, string>,
): { upsert: MqttDevice } | { remove: string } | null {
  const mac = CONFIG.exec(topic)?.[1];
  if (!mac) return null;
  if (payload.length === 0) {
    const id = known.get(mac);
    known.delete(mac);
    return id ? { remove: id } : null;
  }
  const c = jsonObject(payload);
  const t = optString(c, 't');
  if (!t || t.includes('/') || t.includes('+') || t.includes('#')) throw new PayloadError('t is not a topic');
  const ft = optString(c, 'ft') ?? DEFAULT_FULL_TOPIC;
  const prefixes = Array.isArray(c.tp) ? c.tp.join(',') : 'cmnd,stat,tele';
  if (ft !== DEFAULT_FULL_TOPIC || prefixes !== 'cmnd,stat,tele')
    throw new PayloadError(`full topic ${ft} with prefixes ${prefixes} is not supported`);
  const relay = flags(c.rl)[0] ?? 0;
  const list = events(c);
  let kind: DeviceKind;
  if (relay === 2) kind = typeof c.lt_st === 'number' && c.lt_st >= 1 ? 'dimmable' : 'binary';
  else if (relay === 1) kind = 'binary';
  else if (list.length > 0) kind = 'sensor';
  else return null; // shutters, fans and sensor-only boards are not lights
  const names = Array.isArray(c.fn) ? c.fn : [];
  const name = typeof names[0] === 'string' ? names[0] : optString(c, 'dn');
  const protocolid = `tasmota:${t}`;
  known.set(mac, protocolid);
  const capabilities = kind === 'dimmable' ? tasmotaCapabilities(c.lt_st) : undefined;
  // A relay is announced to Home Assistant as a switch unless SetOption30 says it drives a light: a plug.
  const plug = relay === 1 && !hassLight(c);
  return {
    upsert: {
      protocolid,
      profile: 'tasmota',
      kind,
      address: t,
      ...(name ? { name } : {}),
      ...(list.length > 0 ? { events: list } : {}),
      ...(capabilities ? { capabilities } : {}),
      ...(plug ? { plug } : {}),
    },
  };
}

/** SetOption30 (`so["30"]` in the discovery config): "announce relays to Home Assistant as lights". */
function hassLight(c: Record<string, unknown>): boolean {
  const so = c.so;
  return typeof so === 'object' && so !== null && (so as Record<string, unknown>)['30'] === 1;
}

/**
 * Tasmota's light subtype `lt_st`: 1 one channel (dimmer), 2 cold/warm white (CT), 3 RGB, 4 RGBW, 5 RGB with
 * cold/warm white. `CT` always spans 153–500 mireds; colour is whatever the LEDs' sRGB-like primaries give.
 */
function tasmotaCapabilities(ltSt: unknown): LightCapabilities | undefined {
  if (ltSt === 2) return { ct: { ...TASMOTA_CT } };
  if (ltSt === 3 || ltSt === 4) return { xy: { gamut: SRGB_GAMUT } };
  if (ltSt === 5) return { ct: { ...TASMOTA_CT }, xy: { gamut: SRGB_GAMUT } };
  return undefined;
}
