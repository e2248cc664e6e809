/**
 * Hearth's own topics on the bus (README "Topics"), for Node-RED, Home Assistant and scripts:
 *   hearth/<site>/light/<id>/state         retained  {"state":"ON","brightness":128,"on":true,"bri":128}
 *                                                    + for a light with colour: color_mode, color_temp,
 *                                                    color {x, y} (HA JSON) and ct, xy, colormode (site API)
 *   hearth/<site>/light/<id>/availability  retained  online | offline (MQTT lights: their device's presence)
 *   hearth/<site>/light/<id>/set           in        {"on":true,"bri":128} or {"state":"ON","brightness":128},
 *                                                    colour as HA JSON (color_temp, color {x,y}|{h,s}|{r,g,b},
 *                                                    transition) or the site API's (ct, kelvin, xy, hex, hue/sat)
 *   hearth/<site>/sensor/<id>/action       out       the event name (not retained)
 *   hearth/<site>/sensor/<id>/event        in        {"event":"1"}: the generic sensor topic
 *   hearth/<site>/status                   retained  online | offline
 * `<id>` is the lighting `_id` of the light or sensor, whatever its vendor (`/`, `+`, `#`, `%` would be
 * percent-encoded; `_id`s have none today). Commands are never retained by Hearth, and retained commands
 * received are ignored (ghost switching, docs/mqtt-devices.md#tasmota-and-shelly).
 */
import type { Logger } from 'pino';
import type { MqttApi, MqttMessage } from '../../core/sdk.ts';
import { type LightState, rgbToHex } from '../../drivers/lighting/index.ts';
import type { LightStateRequest } from '../lighting/types.ts';

const MAX_IN = 1024;

export const topicId = (id: string) =>
  id.replace(/[/+#%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
export const fromTopicId = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

export interface HearthTopicDeps {
  /** Commands a light of the site (lighting `_id`); rejects when the site has no such light or driver. */
  setLight(site: string, lightId: string, level: LightStateRequest | 'on'): Promise<unknown>;
  postSensorEvent(site: string, sensorId: string, event: string): Promise<void>;
}

/**
 * Colour of a command, as Home Assistant's JSON schema sends it or as the site API takes it; the lighting
 * plugin checks the values against the light (a bad one is refused there and logged here).
 */
function colourFields(b: Record<string, unknown>): Partial<LightStateRequest> | null {
  const out: Record<string, unknown> = {};
  for (const k of ['ct', 'kelvin', 'xy', 'hex', 'hue', 'sat', 'transition'])
    if (b[k] !== undefined) out[k] = b[k];
  if (b.color_temp !== undefined) out.ct = b.color_temp;
  const c = b.color;
  if (typeof c === 'object' && c !== null) {
    const col = c as Record<string, unknown>;
    if (col.x !== undefined || col.y !== undefined) out.xy = [col.x, col.y];
    else if (col.h !== undefined || col.s !== undefined) {
      out.hue = col.h;
      out.sat = col.s;
    } else if (
      [col.r, col.g, col.b].every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 255)
    )
      out.hex = rgbToHex({ r: col.r as number, g: col.g as number, b: col.b as number });
    else return null;
  }
  return Object.keys(out).length ? (out as Partial<LightStateRequest>) : {};
}

/**
 * `{"on","bri"}` or Home Assistant JSON `{"state","brightness"}` (0..255), with optional colour; `'on'` = on
 * at its last level.
 */
export function parseCommand(payload: Buffer): LightStateRequest | 'on' | null {
  if (payload.length > MAX_IN) return null;
  let body: unknown;
  try {
    body = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  const on =
    typeof b.on === 'boolean' ? b.on : b.state === 'ON' ? true : b.state === 'OFF' ? false : undefined;
  const rawBri = b.bri ?? b.brightness;
  if (
    rawBri !== undefined &&
    (typeof rawBri !== 'number' || !Number.isInteger(rawBri) || rawBri < 0 || rawBri > 255)
  )
    return null;
  const bri = rawBri as number | undefined;
  const colour = colourFields(b);
  if (colour === null) return null;
  if (on === false || bri === 0) return { on: false, bri: 0 };
  const coloured = Object.keys(colour).length > 0;
  if (bri !== undefined) return { on: true, bri, ...colour };
  // HA sends a colour alone with `state: ON`; a colour alone also means "on, in that colour"
  if (coloured) return { on: true, ...colour };
  return on === true ? 'on' : null;
}

export class HearthTopics {
  readonly #mqtt: MqttApi;
  readonly #log: Logger;
  readonly #deps: HearthTopicDeps;

  constructor(mqtt: MqttApi, log: Logger, deps: HearthTopicDeps) {
    this.#mqtt = mqtt;
    this.#log = log;
    this.#deps = deps;
  }

  #publish(topic: string, payload: string, retain: boolean): void {
    this.#mqtt
      .publish(topic, payload, { retain })
      .catch((err: unknown) => this.#log.debug({ err, topic }, 'hearth topic not published'));
  }

  state(site: string, lightId: string, level: LightState): void {
    const body: Record<string, unknown> = {
      state: level.on ? 'ON' : 'OFF',
      brightness: level.bri,
      on: level.on,
      bri: level.bri,
    };
    // HA JSON schema's colour fields, then the site API's (a light without colour has none)
    if (level.colormode) body.color_mode = level.colormode === 'ct' ? 'color_temp' : 'xy';
    if (level.ct !== undefined) body.color_temp = level.ct;
    if (level.xy) body.color = { x: level.xy[0], y: level.xy[1] };
    if (level.ct !== undefined) body.ct = level.ct;
    if (level.xy) body.xy = level.xy;
    if (level.colormode) body.colormode = level.colormode;
    this.#publish(`hearth/${site}/light/${topicId(lightId)}/state`, JSON.stringify(body), true);
  }

  availability(site: string, lightId: string, online: boolean): void {
    this.#publish(
      `hearth/${site}/light/${topicId(lightId)}/availability`,
      online ? 'online' : 'offline',
      true,
    );
  }

  /** Removes a light's retained topics (the light was deleted). */
  forget(site: string, lightId: string): void {
    this.#publish(`hearth/${site}/light/${topicId(lightId)}/state`, '', true);
    this.#publish(`hearth/${site}/light/${topicId(lightId)}/availability`, '', true);
  }

  event(site: string, id: string, event: string): void {
    this.#publish(`hearth/${site}/sensor/${topicId(id)}/action`, event, false);
  }

  siteStatus(site: string, online: boolean): void {
    this.#publish(`hearth/${site}/status`, online ? 'online' : 'offline', true);
  }

  async listen(): Promise<void> {
    await this.#mqtt.subscribe('hearth/+/light/+/set', (m) => this.#command(m));
    await this.#mqtt.subscribe('hearth/+/sensor/+/event', (m) => this.#sensorEvent(m));
  }

  #command(m: MqttMessage): void {
    const [, site, , raw] = m.topic.split('/');
    const id = raw ? fromTopicId(raw) : null;
    if (m.retain || !site || !id) return;
    const level = parseCommand(m.payload);
    if (!level) {
      this.#log.warn({ topic: m.topic }, 'dropped a bad command on a hearth topic');
      return;
    }
    this.#deps
      .setLight(site, id, level)
      .catch((err: unknown) =>
        this.#log.warn({ topic: m.topic, reason: (err as Error).message }, 'hearth topic command failed'),
      );
  }

  #sensorEvent(m: MqttMessage): void {
    const [, site, , raw] = m.topic.split('/');
    const id = raw ? fromTopicId(raw) : null;
    if (m.retain || !site || !id) return;
    let event: unknown;
    try {
      event =
        m.payload.length <= MAX_IN
          ? (JSON.parse(m.payload.toString('utf8')) as { event?: unknown }).event
          : null;
    } catch {
      event = null;
    }
    if (typeof event !== 'string' || event === '' || event.length > 64) {
      this.#log.warn({ topic: m.topic }, 'dropped a bad sensor event: expected {"event":"<1..64 chars>"}');
      return;
    }
    // The event goes out on …/action like every sensor event (lighting's bus event), not from here.
    this.#deps
      .postSensorEvent(site, id, event)
      .catch((err: unknown) =>
        this.#log.warn({ topic: m.topic, reason: (err as Error).message }, 'sensor event refused'),
      );
  }
}
