/** The driver's options (`addDriver({ type: 'mqtt', options })`), checked once at construction. */
import type { DeviceKind } from '../../plugins/lighting/driver.ts';
import { type AddressDefaults, deviceFromProtocolId, type MqttDevice, PROFILES } from './device.ts';
import type { BrokerOptions } from './external-link.ts';

export interface MqttDriverOptions {
  /** An external broker; absent = the hub's own broker in process (needs the plugin's link). */
  broker?: BrokerOptions;
  zigbee2mqttBase: string;
  /** Devices known before any discovery (config, registered by the operator, remembered). */
  devices: MqttDevice[];
  discovery: { homeAssistant: string | null; zigbee2mqtt: boolean };
  /** How long start() waits for the first connection before returning with the link down. */
  connectWaitMs: number;
}

const KINDS: DeviceKind[] = ['dimmable', 'binary', 'sensor'];
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A device entry: a full device (as remembered by the plugin) or `{protocolid, kind?, name?, ...}`. */
export function parseDevice(raw: unknown, defaults: AddressDefaults): MqttDevice {
  if (!isObj(raw) || typeof raw.protocolid !== 'string') throw new Error('mqtt device needs a protocolid');
  const full =
    typeof raw.profile === 'string' &&
    PROFILES.includes(raw.profile as MqttDevice['profile']) &&
    typeof raw.address === 'string';
  const base = full ? (raw as unknown as MqttDevice) : deviceFromProtocolId(raw.protocolid, defaults);
  if (!base) throw new Error(`mqtt device ${raw.protocolid}: unknown profile or address`);
  if (base.profile === 'ha-json' && !base.ha)
    throw new Error(`mqtt device ${raw.protocolid}: needs Home Assistant topics`);
  const d: MqttDevice = { ...base };
  if (typeof raw.kind === 'string') {
    if (!KINDS.includes(raw.kind as DeviceKind)) throw new Error(`mqtt device ${raw.protocolid}: bad kind`);
    d.kind = raw.kind as DeviceKind;
  }
  if (typeof raw.name === 'string') d.name = raw.name;
  if (Array.isArray(raw.events)) d.events = raw.events.filter((e): e is string => typeof e === 'string');
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
    },
    connectWaitMs: typeof raw.connectWaitMs === 'number' ? raw.connectWaitMs : 3000,
  };
  if (isObj(raw.broker)) {
    if (typeof raw.broker.url !== 'string') throw new Error('mqtt driver: broker.url is required');
    opts.broker = raw.broker as unknown as BrokerOptions;
  }
  return opts;
}
