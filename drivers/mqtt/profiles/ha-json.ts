/**
 * Home Assistant MQTT light, JSON schema (docs/mqtt-devices.md#home-assistant-mqtt-lights): `{"state":"ON","brightness":n}` on the command
 * and state topics, `brightness_scale` 255 by default, presence on the availability topic. An HA MQTT
 * `switch` (a relay) uses the same topics with plain `payload_on`/`state_on` payloads, and so does a light
 * of HA's default schema, whose brightness is a plain number on topics of its own. Device triggers
 * (device_automation) become sensor events. There is no read command: state is expected retained.
 */
import {
  briToLevel254,
  briToPercent,
  coldWarmToMirek,
  hsToXy,
  kelvinToMirek,
  type LightColour,
  type LightCommand,
  level254ToBri,
  mirekToColdWarm,
  mirekToKelvin,
  percentToBri,
  rgbToRgbw,
  rgbToXy,
  rgbwToXy,
  rgbwwToXy,
  WHITE_XY,
  type Xy,
  xyToHs,
  xyToRgb,
} from '../../lighting/index.ts';
import type { HaTopics, MqttDevice } from '../device.ts';
import { jsonObject, onOff, optNumber, PayloadError, text } from '../payload.ts';
import type { Inbound, Profile } from './types.ts';

/** The brightness scales Hearth converts with the shared helpers; discovery refuses any other. */
export const HA_SCALES = [100, 254, 255] as const;

function toWire(scale: number, bri: number): number {
  if (scale === 100) return briToPercent(bri);
  if (scale === 254) return briToLevel254(bri);
  return bri;
}

function fromWire(scale: number, value: number): number {
  if (scale === 100) return percentToBri(value);
  if (scale === 254) return level254ToBri(value);
  return Math.min(255, Math.max(0, Math.round(value)));
}

/** How close to the white point a colour must be to be shown by a `white` light's white LED instead. */
const NEAR_WHITE = 0.01;

const nearWhite = (xy: Xy) => Math.hypot(xy[0] - WHITE_XY[0], xy[1] - WHITE_XY[1]) <= NEAR_WHITE;

/** The mired range of an RGBWW light's cold and warm LEDs: the light's own range (HA's default 153–500). */
const whiteRange = (d: MqttDevice) => d.capabilities?.ct ?? { min: 153, max: 500 };

/**
 * A command's colour in the first form the light declared (HA JSON schema): `color_temp` (mireds, or
 * Kelvin with `color_temp_kelvin`), or on an RGBWW light without it the cold/warm white mix; a colour as
 * `white` (the white LED, for white itself on a light with that mode), `{x, y}`, `{h, s}` or
 * `{r, g, b[, w[, c]]}` with the shared grey on the white LEDs. `white` carries the level, so it replaces
 * `brightness`.
 */
function colourToWire(d: MqttDevice, ha: HaTopics, level: LightCommand): Record<string, unknown> {
  const modes = ha.colourModes ?? [];
  if (level.colormode === 'ct' && level.ct !== undefined) {
    if (modes.includes('color_temp'))
      return { color_temp: ha.colourTempKelvin ? mirekToKelvin(level.ct) : level.ct };
    if (modes.includes('rgbww'))
      return { color: { r: 0, g: 0, b: 0, ...mirekToColdWarm(level.ct, whiteRange(d)) } };
    return {};
  }
  if (level.colormode !== 'xy' || !level.xy) return {};
  const xy = level.xy;
  if (modes.includes('white') && nearWhite(xy)) {
    const scale = ha.whiteScale ?? 255;
    return { white: Math.max(1, Math.round((level.bri / 255) * scale)) };
  }
  if (modes.includes('xy')) return { color: { x: xy[0], y: xy[1] } };
  if (modes.includes('hs')) {
    const { hue, sat } = xyToHs(xy);
    return { color: { h: hue, s: sat } };
  }
  const rgb = xyToRgb(xy);
  if (modes.includes('rgbww')) {
    const { r, g, b, w } = rgbToRgbw(rgb);
    return { color: { r, g, b, c: w, w: 0 } };
  }
  if (modes.includes('rgbw')) return { color: rgbToRgbw(rgb) };
  if (modes.includes('rgb')) return { color: rgb };
  return {};
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * A state's colour: `color_mode`, `color_temp`, `color` in whichever form it comes. `white` is the white
 * point (the white LED's own colour is not published); an RGBWW light lit by its white LEDs alone shows
 * their mix as a colour temperature.
 */
function colourFromWire(d: MqttDevice, ha: HaTopics, obj: Record<string, unknown>): LightColour {
  const out: LightColour = {};
  if (num(obj.color_temp) && obj.color_temp > 0)
    out.ct = ha.colourTempKelvin ? kelvinToMirek(obj.color_temp) : Math.round(obj.color_temp);
  const mode = obj.color_mode;
  const c = obj.color;
  if (typeof c === 'object' && c !== null) {
    const col = c as Record<string, unknown>;
    let xy: Xy | null = null;
    const rgb = num(col.r) && num(col.g) && num(col.b) ? { r: col.r, g: col.g, b: col.b } : null;
    if (num(col.x) && num(col.y) && col.x >= 0 && col.x <= 1 && col.y >= 0 && col.y <= 1) xy = [col.x, col.y];
    else if (num(col.h) && num(col.s)) xy = hsToXy(col.h, col.s);
    else if (rgb && num(col.c) && num(col.w)) {
      if (mode === 'rgbww' && rgb.r + rgb.g + rgb.b === 0 && col.c + col.w > 0) {
        out.ct = coldWarmToMirek(col.c, col.w, whiteRange(d));
        out.colormode = 'ct';
        return out;
      }
      xy = rgbwwToXy({ ...rgb, c: col.c, w: col.w }, whiteRange(d));
    } else if (rgb && num(col.w)) xy = rgbwToXy({ ...rgb, w: col.w });
    else if (rgb && rgb.r + rgb.g + rgb.b > 0) xy = rgbToXy(rgb);
    if (xy) out.xy = xy;
  }
  if (mode === 'white') out.xy = WHITE_XY;
  if (mode === 'color_temp') out.colormode = 'ct';
  else if (typeof mode === 'string' && ['xy', 'hs', 'rgb', 'rgbw', 'rgbww', 'white'].includes(mode))
    out.colormode = 'xy';
  return out;
}

function topicsOf(d: MqttDevice): HaTopics {
  if (!d.ha) throw new PayloadError(`device ${d.protocolid} has no Home Assistant topics`);
  return d.ha;
}

export const haJson: Profile = {
  topics(d) {
    const ha = topicsOf(d);
    const list = [
      ha.stateTopic,
      ha.brightness?.stateTopic,
      ha.availabilityTopic,
      ...ha.triggers.map((t) => t.topic),
    ];
    return [...new Set(list.filter((t): t is string => typeof t === 'string'))];
  },

  command(d, level) {
    const ha = topicsOf(d);
    if (!ha.commandTopic) throw new Error(`device ${d.protocolid} has no command topic`);
    if (ha.plain) {
      const power = { topic: ha.commandTopic, payload: level.on ? ha.plain.payloadOn : ha.plain.payloadOff };
      const b = ha.brightness;
      if (!level.on || !b || d.kind !== 'dimmable') return [power];
      const dim = { topic: b.commandTopic, payload: String(toWire(ha.brightnessScale, level.bri)) };
      if (b.onCommand === 'brightness') return [dim];
      return b.onCommand === 'first' ? [power, dim] : [dim, power];
    }
    const body: Record<string, unknown> = { state: level.on ? 'ON' : 'OFF' };
    if (level.on && d.kind === 'dimmable') body.brightness = toWire(ha.brightnessScale, level.bri);
    if (level.on) Object.assign(body, colourToWire(d, ha, level));
    // HA: `white` is the level of the white LED, sent instead of brightness
    if (body.white !== undefined) delete body.brightness;
    if (level.transition !== undefined) body.transition = level.transition;
    return [{ topic: ha.commandTopic, payload: JSON.stringify(body) }];
  },

  query: () => [],

  parse(d, topic, payload) {
    const ha = topicsOf(d);
    const out: Inbound[] = [];
    for (const t of ha.triggers) {
      if (t.topic !== topic) continue;
      if (t.payload === undefined || t.payload === text(payload)) out.push({ type: 'event', event: t.event });
    }
    if (topic === ha.availabilityTopic) {
      const s = text(payload);
      if (s === ha.payloadAvailable) out.push({ type: 'availability', online: true });
      else if (s === ha.payloadNotAvailable) out.push({ type: 'availability', online: false });
      else throw new PayloadError('availability payload is neither available nor not available');
    }
    if (topic === ha.brightness?.stateTopic) {
      const n = Number(text(payload));
      if (text(payload).trim() === '' || !Number.isFinite(n))
        throw new PayloadError('brightness is not a number');
      out.push({ type: 'state', bri: fromWire(ha.brightnessScale, n), dimOnly: true });
    }
    if (topic === ha.stateTopic && ha.plain) {
      const s = text(payload);
      if (s === ha.plain.stateOn) out.push({ type: 'state', on: true });
      else if (s === ha.plain.stateOff) out.push({ type: 'state', on: false });
      // Home Assistant: `None` resets the state to unknown; Hearth keeps the last one it knew.
      else if (s !== 'None') throw new PayloadError('state is neither the on nor the off payload');
    } else if (topic === ha.stateTopic) {
      const obj = jsonObject(payload);
      const state: Inbound = { type: 'state' };
      const on = onOff(obj.state, 'state');
      const value = optNumber(obj, 'brightness');
      if (on !== undefined) state.on = on;
      if (value !== undefined) state.bri = fromWire(ha.brightnessScale, value);
      Object.assign(state, colourFromWire(d, ha, obj));
      out.push(state);
    }
    return out;
  },
};
