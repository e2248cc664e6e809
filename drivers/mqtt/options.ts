/** The driver's options (`addDriver({ type: 'mqtt', options })`), checked once at construction. */
import type { DeviceKind } from '../lighting/index.ts';
import {
  type AddressDefaults,
  deviceFromProtocolId,
  type HaTopics,
  type HaTrigger,
  type MqttDevice,
  PROFILES,
} from './device.ts';
import type { BrokerOptions } from './external-link.ts';
import { HA_SCALES } from './profiles/ha-json.ts';

export interface MqttDriverOptions {
  /** An external broker; absent = the hub's own broker in process (needs the plugin's link). */
  broker?: BrokerOptions;
  zigbee2mqttBase: string;
  /** Devices known before any discovery (config, registered by the operator, remembered). */
  devices: MqttDevice[];
  discovery: { homeAssistant: string | null; zigbee2mqtt: boolean; tasmota: boolean };
  /** How long start() waits for the first connection before returning with the link down. */
  connectWaitMs: number;
}

const KINDS: DeviceKind[] = ['dimmable', 'binary', 'sensor'];
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

const topic = (v: unknown, what: string): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '' || v.includes('+') || v.includes('#'))
    throw new Error(`${what} must be a topic name without wildcards`);
  return v;
};

/** A full entry's address fields end up in topic names: no wildcards, known components. */
function checkAddress(d: MqttDevice): void {
  topic(d.address, `mqtt device ${d.protocolid}: address`);
  if (d.component !== undefined && !['relay', 'light', 'switch'].includes(d.component))
    throw new Error(`mqtt device ${d.protocolid}: component must be relay, light or switch`);
  if (d.channel !== undefined && (!Number.isInteger(d.channel) || d.channel < 0))
    throw new Error(`mqtt device ${d.protocolid}: channel must be a non-negative integer`);
}

/** Home Assistant topics as stored by discovery or given by the operator, checked field by field. */
function haTopics(raw: unknown, id: string): HaTopics {
  if (!isObj(raw)) throw new Error(`mqtt device ${id}: needs Home Assistant topics (ha)`);
  const scale = raw.brightnessScale ?? 255;
  if (!HA_SCALES.includes(scale as 255))
    throw new Error(`mqtt device ${id}: brightnessScale must be 100, 254 or 255`);
  const triggers = raw.triggers ?? [];
  if (!Array.isArray(triggers)) throw new Error(`mqtt device ${id}: triggers must be a list`);
  const ha: HaTopics = {
    payloadAvailable: typeof raw.payloadAvailable === 'string' ? raw.payloadAvailable : 'online',
    payloadNotAvailable: typeof raw.payloadNotAvailable === 'string' ? raw.payloadNotAvailable : 'offline',
    brightnessScale: scale as number,
    triggers: triggers.map((t) => {
      if (!isObj(t) || typeof t.event !== 'string')
        throw new Error(`mqtt device ${id}: a trigger needs topic and event`);
      const trigger: HaTrigger = { topic: topic(t.topic, 'a trigger topic') ?? '', event: t.event };
      if (!trigger.topic) throw new Error(`mqtt device ${id}: a trigger needs a topic`);
      if (typeof t.payload === 'string') trigger.payload = t.payload;
      return trigger;
    }),
  };
  if (raw.plain !== undefined) {
    const p = raw.plain;
    const keys = ['payloadOn', 'payloadOff', 'stateOn', 'stateOff'] as const;
    if (!isObj(p) || !keys.every((k) => typeof p[k] === 'string'))
      throw new Error(`mqtt device ${id}: plain needs payloadOn, payloadOff, stateOn and stateOff strings`);
    ha.plain = {
      payloadOn: p.payloadOn as string,
      payloadOff: p.payloadOff as string,
      stateOn: p.stateOn as string,
      stateOff: p.stateOff as string,
    };
  }
  if (raw.brightness !== undefined) {
    const b = raw.brightness;
    const commandTopic = isObj(b) ? topic(b.commandTopic, 'brightness.commandTopic') : undefined;
    const onCommand = isObj(b) ? (b.onCommand ?? 'last') : undefined;
    if (!isObj(b) || !commandTopic || !['last', 'first', 'brightness'].includes(onCommand as string))
      throw new Error(
        `mqtt device ${id}: brightness needs commandTopic and onCommand last, first or brightness`,
      );
    const stateTopic = topic(b.stateTopic, 'brightness.stateTopic');
    ha.brightness = {
      commandTopic,
      onCommand: onCommand as 'last' | 'first' | 'brightness',
      ...(stateTopic ? { stateTopic } : {}),
    };
  }
  const command = topic(raw.commandTopic, 'commandTopic');
  const state = topic(raw.stateTopic, 'stateTopic');
  const availability = topic(raw.availabilityTopic, 'availabilityTopic');
  if (command) ha.commandTopic = command;
  if (state) ha.stateTopic = state;
  if (availability) ha.availabilityTopic = availability;
  return ha;
}

/** A device entry: a full device (as remembered by the plugin) or `{protocolid, kind?, name?, ...}`. */
export function parseDevice(raw: unknown, defaults: AddressDefaults): MqttDevice {
  if (!isObj(raw) || typeof raw.protocolid !== 'string') throw new Error('mqtt device needs a protocolid');
  // `<profile>:<address>`: an id is never a bare word like `constructor` or `__proto__`.
  if (!/^[a-z][a-z0-9-]*:./.test(raw.protocolid))
    throw new Error(`mqtt device ${raw.protocolid}: the id must be <profile>:<address>`);
  const full =
    typeof raw.profile === 'string' &&
    PROFILES.includes(raw.profile as MqttDevice['profile']) &&
    typeof raw.address === 'string';
  const base = full ? (raw as unknown as MqttDevice) : deviceFromProtocolId(raw.protocolid, defaults);
  if (!base) throw new Error(`mqtt device ${raw.protocolid}: unknown profile or address`);
  const d: MqttDevice = { ...base };
  if (full) checkAddress(d);
  if (base.profile === 'ha-json') d.ha = haTopics(raw.ha, raw.protocolid);
  if (typeof raw.kind === 'string') {
    if (!KINDS.includes(raw.kind as DeviceKind)) throw new Error(`mqtt device ${raw.protocolid}: bad kind`);
    d.kind = raw.kind as DeviceKind;
  }
  if (typeof raw.name === 'string') d.name = raw.name;
  if (Array.isArray(raw.events)) d.events = raw.events.filter((e): e is string => typeof e === 'string');
  // `plug` as given (a device configured by hand, or remembered from discovery); else what the id says.
  if (raw.plug === true) d.plug = true;
  else if (raw.plug === false || full) delete d.plug;
  return d;
}

export function parseOptions(raw: Record<string, unknown>): MqttDriverOptions {
  const zigbee2mqttBase = typeof raw.zigbee2mqttBase === 'string' ? raw.zigbee2mqttBase : 'zigbee2mqtt';
  const discovery = isObj(raw.discovery) ? raw.discovery : {};
  const ha = discovery.homeAssistant;
  const opts: MqttDriverOptions = {
    zigbee2mqttBase,
    devices: (Array.isArray(raw.devices) ? raw.devices : []).map((d) => parseDevice(d, { zigbee2mqttBase })),
    discovery: {
      homeAssistant: ha === true ? 'homeassistant' : typeof ha === 'string' ? ha : null,
      zigbee2mqtt: discovery.zigbee2mqtt === true,
      tasmota: discovery.tasmota === true,
    },
    connectWaitMs: typeof raw.connectWaitMs === 'number' ? raw.connectWaitMs : 3000,
  };
  if (isObj(raw.broker)) {
    if (typeof raw.broker.url !== 'string') throw new Error('mqtt driver: broker.url is required');
    opts.broker = raw.broker as unknown as BrokerOptions;
  }
  return opts;
}
