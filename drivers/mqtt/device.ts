/**
 * An MQTT device as the driver addresses it. The protocol id names the profile and the device's own
 * address (`tasmota:kitchen`, `zigbee2mqtt:Hall bulb`, `shelly1:shellydimmer2-AB12:light:0`,
 * `shelly2:shellyplus1-a8:switch:0`, `ha:<unique id>`), so a light created on the site API with such an
 * `mqttid` works without any other configuration; Home Assistant devices need their topics (discovery or
 * a registered device).
 */
import type { DeviceInfo, DeviceKind, LightCapabilities } from '../lighting/index.ts';

export type ProfileName = 'zigbee2mqtt' | 'ha-json' | 'tasmota' | 'shelly1' | 'shelly2';
export const PROFILES: readonly ProfileName[] = ['zigbee2mqtt', 'ha-json', 'tasmota', 'shelly1', 'shelly2'];

/** A Home Assistant device trigger (device_automation): a message on `topic` (matching `payload`) → `event`. */
export interface HaTrigger {
  topic: string;
  payload?: string;
  event: string;
}

/** Topics of a Home Assistant MQTT JSON light (or trigger-only sensor), from discovery or registration. */
export interface HaTopics {
  commandTopic?: string;
  stateTopic?: string;
  availabilityTopic?: string;
  payloadAvailable: string;
  payloadNotAvailable: string;
  /** HA `brightness_scale`, default 255. */
  brightnessScale: number;
  triggers: HaTrigger[];
  /**
   * Plain payloads on the command and state topics instead of JSON: an HA MQTT `switch` (a relay), or a light
   * of HA's default schema.
   */
  plain?: HaPlain;
  /** A default-schema light's brightness: a plain number on topics of its own. */
  brightness?: HaBrightness;
  /** JSON schema `supported_color_modes` of a light with colour (how colour is put on the wire). */
  colourModes?: string[];
  /** `color_temp_kelvin`: colour temperature in Kelvin on the wire instead of mireds. */
  colourTempKelvin?: boolean;
  /** `white_scale` of a light with the `white` colour mode (the `white` level's full scale, default 255). */
  whiteScale?: number;
}

/**
 * HA default-schema light brightness (`brightness_command_topic`, `brightness_state_topic`, scaled by
 * `brightness_scale`). `onCommand` is HA's `on_command_type`: `last` (the default) publishes the brightness,
 * then `payload_on`; `first` the other way round; `brightness` only the brightness.
 */
export interface HaBrightness {
  commandTopic: string;
  stateTopic?: string;
  onCommand: 'last' | 'first' | 'brightness';
}

/** HA switch payloads: `payload_on`/`payload_off` (default `ON`/`OFF`), `state_on`/`state_off` (default the same). */
export interface HaPlain {
  payloadOn: string;
  payloadOff: string;
  stateOn: string;
  stateOff: string;
}

export interface MqttDevice {
  protocolid: string;
  profile: ProfileName;
  kind: DeviceKind;
  name?: string;
  events?: string[];
  /** Colour temperature and colour, when discovery says the device has them. */
  capabilities?: LightCapabilities;
  /** The device is a plug or a relay announced as a switch, not a lamp (docs/mqtt-devices.md#plugs). */
  plug?: boolean;
  /**
   * The profile's address: zigbee2mqtt `<base>/<friendly name>`, Tasmota `%topic%`, Shelly Gen1
   * `shellies/<id>`, Shelly Gen2 the device's topic prefix, Home Assistant the unique id.
   */
  address: string;
  /** Shelly: `relay`/`light` (Gen1), `switch`/`light` (Gen2); channel number. */
  component?: string;
  channel?: number;
  ha?: HaTopics;
}

export interface AddressDefaults {
  /** zigbee2mqtt base topic (default `zigbee2mqtt`). */
  zigbee2mqttBase: string;
}

// Gen1 `color` is a Shelly Bulb or an RGBW2 in colour mode; `white` an RGBW2 channel in white mode.
const SHELLY1 = new Set(['relay', 'light', 'color', 'white']);
const SHELLY2 = new Set(['switch', 'light']);
/** Shelly ids begin with the model name: Plug, Plug S, Plus Plug S/IT/UK/US, Plug S Gen3… */
const SHELLY_PLUG = /^shelly[a-z0-9]*plug/i;

/** Builds the device a protocol id names, or null when the id is not one this driver understands. */
export function deviceFromProtocolId(protocolid: string, defaults: AddressDefaults): MqttDevice | null {
  const colon = protocolid.indexOf(':');
  if (colon <= 0) return null;
  const profile = protocolid.slice(0, colon);
  const rest = protocolid.slice(colon + 1);
  if (!rest || rest.includes('#') || rest.includes('+')) return null;
  switch (profile) {
    case 'zigbee2mqtt':
      return { protocolid, profile, kind: 'dimmable', address: `${defaults.zigbee2mqttBase}/${rest}` };
    case 'tasmota':
      return rest.includes('/') ? null : { protocolid, profile, kind: 'dimmable', address: rest };
    case 'shelly1':
    case 'shelly2': {
      const [id, component = profile === 'shelly1' ? 'relay' : 'switch', ch = '0'] = rest.split(':');
      const channel = Number(ch);
      const allowed = profile === 'shelly1' ? SHELLY1 : SHELLY2;
      if (!id || !allowed.has(component) || !Number.isInteger(channel) || channel < 0) return null;
      const address = profile === 'shelly1' ? `shellies/${id}` : id;
      const kind = component === 'relay' || component === 'switch' ? 'binary' : 'dimmable';
      // A Shelly's id starts with its model: `shellyplug-s-…`, `shellyplusplugs-…` are plugs.
      const plug = kind === 'binary' && SHELLY_PLUG.test(id);
      return { protocolid, profile, kind, address, component, channel, ...(plug ? { plug } : {}) };
    }
    default:
      return null;
  }
}

export function deviceInfo(d: MqttDevice): DeviceInfo {
  const info: DeviceInfo = { protocolid: d.protocolid, kind: d.kind };
  if (d.name !== undefined) info.name = d.name;
  if (d.events !== undefined) info.events = d.events;
  if (d.capabilities !== undefined) info.capabilities = d.capabilities;
  if (d.plug) info.plug = true;
  return info;
}
