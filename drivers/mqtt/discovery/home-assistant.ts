/**
 * Home Assistant MQTT discovery: `<prefix>/<component>/[<node_id>/]<object_id>/config`. Lights of the
 * JSON and default schemas and switches (relays, plain payloads) become `ha-json` devices;
 * `device_automation` triggers become sensors (one per HA device, its triggers' payloads as events). An empty config payload removes the entity. Abbreviated keys and the
 * `~` base topic are expanded as Home Assistant does. Announced topics are subscribed to and published on
 * as given, so a wildcard in one (which would subscribe to every device's messages) refuses the config.
 */
import { DEFAULT_GAMUT, kelvinToMirek, type LightCapabilities, SRGB_GAMUT } from '../../lighting/index.ts';
import type { HaBrightness, HaTopics, HaTrigger, MqttDevice } from '../device.ts';
import { jsonObject, optString, optTopic, PayloadError } from '../payload.ts';
import { HA_SCALES } from '../profiles/ha-json.ts';

const COLOUR_MODES = ['xy', 'hs', 'rgb', 'rgbw', 'rgbww'];

/**
 * An HA JSON light's colour: `color_temp` in `supported_color_modes` gives a mired range (`min_mireds`/
 * `max_mireds`, or `min_kelvin`/`max_kelvin` with `color_temp_kelvin`; HA's defaults 153–500), any of xy,
 * hs, rgb, rgbw, rgbww gives colour (sRGB's triangle for RGB modes, Hue's C for xy/hs: HA does not
 * publish gamuts). `white` (HA lists it only beside a colour mode) is the white LED: white on such a light.
 */
function haColour(
  c: Record<string, unknown>,
  modes: unknown[],
): { capabilities: LightCapabilities; modes: string[]; kelvin: boolean } | null {
  const list = modes.filter((m): m is string => typeof m === 'string');
  const caps: LightCapabilities = {};
  const kelvin = c.color_temp_kelvin === true;
  // An RGBWW light's cold and warm LEDs give it a colour temperature even without `color_temp`: Home
  // Assistant mixes them across the light's range, and so does Hearth.
  if (list.includes('color_temp') || list.includes('rgbww')) {
    const int = (v: unknown) =>
      typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : undefined;
    const min = kelvin ? int(c.max_kelvin) && kelvinToMirek(int(c.max_kelvin)!) : int(c.min_mireds);
    const max = kelvin ? int(c.min_kelvin) && kelvinToMirek(int(c.min_kelvin)!) : int(c.max_mireds);
    const range = { min: min ?? 153, max: max ?? 500 };
    if (range.min <= range.max) caps.ct = range;
  }
  const colour = list.filter((m) => COLOUR_MODES.includes(m));
  if (colour.length)
    caps.xy = { gamut: colour.includes('xy') || colour.includes('hs') ? DEFAULT_GAMUT : SRGB_GAMUT };
  return caps.ct || caps.xy ? { capabilities: caps, modes: list, kelvin } : null;
}

const ABBREVIATIONS: Record<string, string> = {
  dev_cla: 'device_class',
  cmd_t: 'command_topic',
  stat_t: 'state_topic',
  avty_t: 'availability_topic',
  avty: 'availability',
  pl_avail: 'payload_available',
  pl_not_avail: 'payload_not_available',
  bri_scl: 'brightness_scale',
  uniq_id: 'unique_id',
  sup_clrm: 'supported_color_modes',
  min_mirs: 'min_mireds',
  max_mirs: 'max_mireds',
  min_kltmp: 'min_kelvin',
  max_kltmp: 'max_kelvin',
  clr_temp_k: 'color_temp_kelvin',
  whit_scl: 'white_scale',
  atype: 'automation_type',
  t: 'topic',
  pl: 'payload',
  stype: 'subtype',
  dev: 'device',
  o: 'origin',
  ids: 'identifiers',
  pl_on: 'payload_on',
  pl_off: 'payload_off',
  stat_on: 'state_on',
  stat_off: 'state_off',
  val_tpl: 'value_template',
  cmd_tpl: 'command_template',
  bri_cmd_t: 'brightness_command_topic',
  bri_cmd_tpl: 'brightness_command_template',
  bri_stat_t: 'brightness_state_topic',
  bri_val_tpl: 'brightness_value_template',
  on_cmd_type: 'on_command_type',
  stat_val_tpl: 'state_value_template',
};

/** Default-schema keys whose Jinja templates only Home Assistant could render. */
const DEFAULT_SCHEMA_TEMPLATES = [
  'state_value_template',
  'brightness_value_template',
  'brightness_command_template',
] as const;

function expand(raw: Record<string, unknown>): Record<string, unknown> {
  const base = typeof raw['~'] === 'string' ? raw['~'] : undefined;
  // Keys come from a device's config: no inherited members, and `__proto__` is just dropped.
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(raw)) {
    if (k === '__proto__') continue;
    const key = (Object.hasOwn(ABBREVIATIONS, k) ? ABBREVIATIONS[k] : undefined) ?? k;
    let value = v;
    if (base && typeof v === 'string' && key.endsWith('topic'))
      value = v.startsWith('~') ? base + v.slice(1) : v.endsWith('~') ? v.slice(0, -1) + base : v;
    if (typeof v === 'object' && v !== null && !Array.isArray(v))
      value = expand({ ...(base ? { '~': base } : {}), ...(v as Record<string, unknown>) });
    if (Array.isArray(v))
      value = v.map((x) =>
        typeof x === 'object' && x !== null
          ? expand({ ...(base ? { '~': base } : {}), ...(x as Record<string, unknown>) })
          : x,
      );
    out[key] = value;
  }
  return out;
}

const CONFIG = /^(light|switch|device_automation)\/(?:([^/]+)\/)?([^/]+)\/config$/;

export type HaChange = { upsert: MqttDevice } | { remove: string } | null;

function availability(
  c: Record<string, unknown>,
): Pick<HaTopics, 'availabilityTopic' | 'payloadAvailable' | 'payloadNotAvailable'> {
  const first = Array.isArray(c.availability)
    ? (c.availability[0] as Record<string, unknown> | undefined)
    : c;
  const topic = first ? optTopic(first, first === c ? 'availability_topic' : 'topic') : undefined;
  return {
    ...(topic ? { availabilityTopic: topic } : {}),
    payloadAvailable: (first && optString(first, 'payload_available')) ?? 'online',
    payloadNotAvailable: (first && optString(first, 'payload_not_available')) ?? 'offline',
  };
}

/** zigbee2mqtt's own HA discovery names its devices `zigbee2mqtt_<ieee>` (and its origin Zigbee2MQTT). */
function fromZigbee2mqtt(c: Record<string, unknown>): boolean {
  const dev = c.device as Record<string, unknown> | undefined;
  const ids = dev?.identifiers;
  const list = Array.isArray(ids) ? ids : [ids];
  const origin = c.origin as Record<string, unknown> | undefined;
  return (
    list.some((x) => typeof x === 'string' && x.startsWith('zigbee2mqtt_')) ||
    (typeof origin?.name === 'string' && origin.name.toLowerCase() === 'zigbee2mqtt')
  );
}

/** Remembers what each config topic announced, so removals and trigger groups resolve to devices. */
export class HaDiscovery {
  readonly #prefix: string;
  readonly #skipZigbee2mqtt: boolean;
  /** config topic → protocol id (+ trigger for device automations) */
  readonly #byTopic = new Map<string, { protocolid: string; trigger?: HaTrigger }>();
  readonly #sensors = new Map<string, MqttDevice>();

  /**
   * `skipZigbee2mqtt`: zigbee2mqtt's `bridge/devices` is read too, so the HA configs zigbee2mqtt publishes
   * for the same devices (its `homeassistant: true` setting) would list each of them twice.
   */
  constructor(prefix: string, opts: { skipZigbee2mqtt?: boolean } = {}) {
    this.#prefix = prefix;
    this.#skipZigbee2mqtt = opts.skipZigbee2mqtt ?? false;
  }

  get filter(): string {
    return `${this.#prefix}/#`;
  }

  /** The change a message on the discovery prefix means; throws PayloadError on a malformed config. */
  handle(topic: string, payload: Buffer): HaChange {
    const m = CONFIG.exec(topic.slice(this.#prefix.length + 1));
    if (!topic.startsWith(`${this.#prefix}/`) || !m) return null;
    const [, component, node, object] = m;
    // Hearth's own announcements (plugins/mqtt-devices ha-publish.ts) must not come back as devices.
    if (node?.startsWith('hearth_')) return null;
    if (payload.length === 0) return this.#removed(topic);
    const c = expand(jsonObject(payload));
    if (this.#skipZigbee2mqtt && fromZigbee2mqtt(c)) return null;
    const id = `${node ? `${node}_` : ''}${object}`;
    if (component === 'light') return this.#light(topic, c, id);
    if (component === 'switch') return this.#switch(topic, c, id);
    return this.#trigger(topic, c, node ?? object!);
  }

  /** A light or switch entity as a device with its command, state and availability topics. */
  #entity(topic: string, c: Record<string, unknown>, fallbackId: string, extra: Partial<HaTopics>) {
    const commandTopic = optTopic(c, 'command_topic');
    if (!commandTopic) throw new PayloadError('config without command_topic');
    const stateTopic = optTopic(c, 'state_topic');
    const protocolid = `ha:${optString(c, 'unique_id') ?? fallbackId}`;
    const name = optString(c, 'name');
    this.#byTopic.set(topic, { protocolid });
    return {
      protocolid,
      profile: 'ha-json' as const,
      address: protocolid.slice(3),
      ...(name ? { name } : {}),
      ha: {
        commandTopic,
        ...(stateTopic ? { stateTopic } : {}),
        ...availability(c),
        brightnessScale: 255,
        triggers: [],
        ...extra,
      },
    };
  }

  /** An HA MQTT switch (relays: ESPHome, Tasmota's HA mode, OpenMQTTGateway): a binary light. */
  #switch(topic: string, c: Record<string, unknown>, fallbackId: string): HaChange {
    // Templates would need Home Assistant's Jinja: such a switch's payloads cannot be read as given.
    if (c.value_template !== undefined || c.command_template !== undefined)
      throw new PayloadError('switch templates are not supported');
    const payloadOn = optString(c, 'payload_on') ?? 'ON';
    const payloadOff = optString(c, 'payload_off') ?? 'OFF';
    const plain = {
      payloadOn,
      payloadOff,
      stateOn: optString(c, 'state_on') ?? payloadOn,
      stateOff: optString(c, 'state_off') ?? payloadOff,
    };
    // HA switch device class `outlet` (the other is `switch`): a plug.
    const plug = c.device_class === 'outlet';
    return {
      upsert: { ...this.#entity(topic, c, fallbackId, { plain }), kind: 'binary', ...(plug ? { plug } : {}) },
    };
  }

  #light(topic: string, c: Record<string, unknown>, fallbackId: string): HaChange {
    const scale = c.brightness_scale ?? 255;
    if (!HA_SCALES.includes(scale as 255))
      throw new PayloadError(`brightness_scale ${String(scale)} is not 100, 254 or 255`);
    const schema = c.schema ?? 'default';
    // `basic` is the default schema's name before Home Assistant 0.86.
    if (schema === 'default' || schema === 'basic')
      return this.#defaultLight(topic, c, fallbackId, scale as number);
    if (schema !== 'json') throw new PayloadError(`schema "${String(schema)}" lights are not supported`);
    const modes = Array.isArray(c.supported_color_modes) ? c.supported_color_modes : [];
    const dimmable = c.brightness === true || modes.some((x) => x !== 'onoff');
    const entity = this.#entity(topic, c, fallbackId, { brightnessScale: scale as number });
    const colour = haColour(c, modes);
    if (colour && entity.ha) {
      entity.ha.colourModes = colour.modes;
      if (colour.kelvin) entity.ha.colourTempKelvin = true;
      const white = c.white_scale;
      if (colour.modes.includes('white') && typeof white === 'number' && Number.isInteger(white) && white > 0)
        entity.ha.whiteScale = white;
    }
    return {
      upsert: {
        ...entity,
        kind: dimmable ? 'dimmable' : 'binary',
        ...(colour ? { capabilities: colour.capabilities } : {}),
      },
    };
  }

  /**
   * A light of HA's default schema: `payload_on`/`payload_off` (default `ON`/`OFF`) on the command and state
   * topics, and, when it dims, its brightness as a plain number on topics of its own.
   */
  #defaultLight(topic: string, c: Record<string, unknown>, fallbackId: string, scale: number): HaChange {
    const templated = DEFAULT_SCHEMA_TEMPLATES.filter((k) => c[k] !== undefined);
    if (templated.length > 0) throw new PayloadError(`${templated.join(', ')} is not supported`);
    const payloadOn = optString(c, 'payload_on') ?? 'ON';
    const payloadOff = optString(c, 'payload_off') ?? 'OFF';
    const plain = { payloadOn, payloadOff, stateOn: payloadOn, stateOff: payloadOff };
    const onCommand = optString(c, 'on_command_type') ?? 'last';
    if (onCommand !== 'last' && onCommand !== 'first' && onCommand !== 'brightness')
      throw new PayloadError(`on_command_type ${onCommand} is not last, first or brightness`);
    const briCommand = optTopic(c, 'brightness_command_topic');
    const briState = optTopic(c, 'brightness_state_topic');
    if (briState !== undefined && briState === optTopic(c, 'state_topic'))
      throw new PayloadError('state and brightness on one topic need templates');
    const brightness: HaBrightness | undefined = briCommand
      ? { commandTopic: briCommand, onCommand, ...(briState ? { stateTopic: briState } : {}) }
      : undefined;
    const entity = this.#entity(topic, c, fallbackId, {
      plain,
      brightnessScale: scale,
      ...(brightness ? { brightness } : {}),
    });
    return { upsert: { ...entity, kind: brightness ? 'dimmable' : 'binary' } };
  }

  #trigger(topic: string, c: Record<string, unknown>, fallbackId: string): HaChange {
    if (c.automation_type !== 'trigger') throw new PayloadError('device_automation is not a trigger');
    const triggerTopic = optTopic(c, 'topic');
    if (!triggerTopic) throw new PayloadError('trigger without topic');
    const payload = optString(c, 'payload');
    const event = payload ?? `${optString(c, 'subtype') ?? 'button'}_${optString(c, 'type') ?? 'press'}`;
    const dev = c.device as Record<string, unknown> | undefined;
    const ids = dev?.identifiers;
    const id =
      Array.isArray(ids) && typeof ids[0] === 'string' ? ids[0] : typeof ids === 'string' ? ids : fallbackId;
    const protocolid = `ha:${id}`;
    const trigger: HaTrigger = { topic: triggerTopic, event, ...(payload !== undefined ? { payload } : {}) };
    this.#byTopic.set(topic, { protocolid, trigger });
    const name = dev && typeof dev.name === 'string' ? dev.name : undefined;
    const sensor = this.#sensors.get(protocolid) ?? {
      protocolid,
      profile: 'ha-json' as const,
      kind: 'sensor' as const,
      address: id,
      ...(name ? { name } : {}),
      ha: { payloadAvailable: 'online', payloadNotAvailable: 'offline', brightnessScale: 255, triggers: [] },
    };
    return { upsert: this.#withTriggers(sensor) };
  }

  #withTriggers(sensor: MqttDevice): MqttDevice {
    const triggers = [...this.#byTopic.values()]
      .filter((e) => e.protocolid === sensor.protocolid && e.trigger)
      .map((e) => e.trigger!);
    const next: MqttDevice = {
      ...sensor,
      events: [...new Set(triggers.map((t) => t.event))],
      ha: { ...sensor.ha!, triggers },
    };
    this.#sensors.set(sensor.protocolid, next);
    return next;
  }

  #removed(topic: string): HaChange {
    const entry = this.#byTopic.get(topic);
    if (!entry) return null;
    this.#byTopic.delete(topic);
    const sensor = this.#sensors.get(entry.protocolid);
    if (entry.trigger && sensor) {
      const next = this.#withTriggers(sensor);
      if (next.ha!.triggers.length > 0) return { upsert: next };
      this.#sensors.delete(entry.protocolid);
    }
    return { remove: entry.protocolid };
  }
}
