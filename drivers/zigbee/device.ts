/** A joined Zigbee device as the driver keeps it, and what Hearth sees of it. */
import type { DeviceInfo, LightCapabilities } from '../lighting/index.ts';
import { HUE_GAMUT_C } from '../lighting/index.ts';
import { findDefinition, type Match } from './devices/index.ts';
import { type IasRecord, zoneEvents } from './ias.ts';
import type { RestoreRecord } from './restore-record.ts';
import { Cluster } from './zcl/clusters.ts';
import { HUE_BUTTON_CLUSTER, HUE_DIMMER_EVENTS, IKEA_ARROW_EVENTS } from './zcl/vendor-remotes.ts';
import type { NetworkParams } from './znp/network.ts';

export interface EndpointRecord {
  id: number;
  deviceId: number;
  inClusters: number[];
  outClusters: number[];
}

export interface ZigbeeDeviceRecord {
  ieee: string;
  nwk: number;
  manufacturer?: string;
  model?: string;
  endpoints: EndpointRecord[];
  /** Colour temperature range the device reported, in mirek. */
  ct?: { min: number; max: number };
  /** Color Control `ColorCapabilities` bits (bit 3 xy, bit 4 colour temperature). */
  colorCapabilities?: number;
  /** An IAS zone device: its zone type and the zone id it was enrolled with. */
  ias?: IasRecord;
  /** Interview finished (descriptors read, bound, reporting configured). */
  interviewed: boolean;
}

/** A Hearth group as a Zigbee group: its 16-bit id and the devices that confirmed they joined it. */
export interface ZigbeeGroupRecord {
  /** The plugin's group id. */
  id: string;
  zigbeeId: number;
  /** Protocol ids of the members that answered `add group` with success. */
  members: string[];
}

/** Where the driver keeps its network and devices; the plugin backs it with its store (one owner). */
export interface ZigbeeStateStore {
  groups(): ZigbeeGroupRecord[];
  putGroup(g: ZigbeeGroupRecord): Promise<void>;
  network(): NetworkParams | null;
  setNetwork(n: NetworkParams): Promise<void>;
  devices(): ZigbeeDeviceRecord[];
  putDevice(d: ZigbeeDeviceRecord): Promise<void>;
  removeDevice(ieee: string): Promise<void>;
  /** The last restore's outcome (restore-record.ts), kept until the next restore; null when none. */
  restoreRecord(): RestoreRecord | null;
  setRestoreRecord(r: RestoreRecord | null): Promise<void>;
}

export function memoryStateStore(): ZigbeeStateStore & { snapshot(): unknown } {
  let network: NetworkParams | null = null;
  const devices = new Map<string, ZigbeeDeviceRecord>();
  const groups = new Map<string, ZigbeeGroupRecord>();
  let restore: RestoreRecord | null = null;
  return {
    groups: () => [...groups.values()],
    async putGroup(g) {
      groups.set(g.id, structuredClone(g));
    },
    network: () => network,
    async setNetwork(n) {
      network = { ...n };
    },
    devices: () => [...devices.values()],
    async putDevice(d) {
      devices.set(d.ieee, structuredClone(d));
    },
    async removeDevice(ieee) {
      devices.delete(ieee);
    },
    restoreRecord: () => restore,
    async setRestoreRecord(r) {
      restore = r ? structuredClone(r) : null;
    },
    snapshot: () => ({ network, devices: [...devices.values()] }),
  };
}

const has = (ep: EndpointRecord, c: number) => ep.inClusters.includes(c);

/** The endpoint Hearth controls or listens to: the first light endpoint, else the first with a sensor. */
export function mainEndpoint(d: ZigbeeDeviceRecord): EndpointRecord | undefined {
  return (
    d.endpoints.find((e) => has(e, Cluster.ON_OFF)) ??
    d.endpoints.find((e) => has(e, Cluster.OCCUPANCY) || has(e, Cluster.IAS_ZONE)) ??
    d.endpoints.find(
      (e) => e.outClusters.includes(Cluster.ON_OFF) || e.outClusters.includes(Cluster.LEVEL),
    ) ??
    d.endpoints[0]
  );
}

/** The smallest IAS zone id no known device has and none being interviewed holds (0..0xFE). */
export function freeZoneId(devices: ZigbeeDeviceRecord[], reserved: Iterable<number> = []): number {
  const used = new Set([...devices.flatMap((d) => (d.ias ? [d.ias.zoneId] : [])), ...reserved]);
  for (let id = 0; id < 0xff; id++) if (!used.has(id)) return id;
  return 0xfe;
}

export const protocolIdOf = (ieee: string, endpoint: number): string => `${ieee}/${endpoint}`;

export function parseProtocolId(id: string): { ieee: string; endpoint: number } | null {
  const m = /^(0x[0-9a-f]{16})\/(\d{1,3})$/.exec(id);
  return m ? { ieee: m[1] as string, endpoint: Number(m[2]) } : null;
}

/**
 * Device ids an endpoint's simple descriptor gives a plug: Home Automation's Mains Power Outlet 0x0009 and
 * Smart Plug 0x0051, Zigbee 3.0 lighting's On/Off and Dimmable Plug-in Unit 0x010A/0x010B, and ZLL's
 * 0x0010/0x0110, which ZLL devices such as IKEA's outlet report (docs/zigbee.md#plugs).
 */
const PLUG_DEVICE_IDS = new Set([0x0009, 0x0051, 0x010a, 0x010b, 0x0010, 0x0110]);

const REMOTE_EVENTS = [
  'on',
  'off',
  'toggle',
  'brightness_step_up',
  'brightness_step_down',
  'brightness_move_up',
  'brightness_move_down',
  'brightness_stop',
];

/** The device table's entry for a device, or null (generic ZCL). */
export const definitionOf = (d: ZigbeeDeviceRecord): Match | null => findDefinition(d.manufacturer, d.model);

export function deviceInfo(d: ZigbeeDeviceRecord): DeviceInfo | null {
  const ep = mainEndpoint(d);
  if (!ep) return null;
  const match = definitionOf(d);
  const name = match
    ? `${match.definition.vendor} ${match.model.description} (${match.model.model})`
    : [d.manufacturer, d.model].filter(Boolean).join(' ') || d.ieee;
  const info: DeviceInfo = { protocolid: protocolIdOf(d.ieee, ep.id), kind: 'sensor', name };
  if (match?.definition.readings) info.readings = [...match.definition.readings];
  if (match?.definition.checkInSeconds) info.checkInSeconds = match.definition.checkInSeconds;
  if (has(ep, Cluster.ON_OFF) && match?.definition.kind !== 'sensor') {
    info.kind = has(ep, Cluster.LEVEL) ? 'dimmable' : 'binary';
    if (PLUG_DEVICE_IDS.has(ep.deviceId)) info.plug = true;
    if (has(ep, Cluster.COLOR)) {
      const bits = d.colorCapabilities ?? 0x18;
      const caps: LightCapabilities = {};
      // The table's range wins: some bulbs report none, or one wider than they can show.
      if (bits & 0x10) caps.ct = match?.model.ct ?? d.ct ?? { min: 153, max: 500 };
      // ZCL does not say which gamut a bulb has; the table knows some (Hue bulbs by model), else gamut C,
      // the widest common one, and the bulb clips.
      if (bits & 0x08) caps.xy = { gamut: match?.model.gamut ?? HUE_GAMUT_C };
      info.capabilities = caps;
    }
    return info;
  }
  const listed = match?.model.events ?? match?.definition.events;
  if (listed) {
    info.events = [...listed];
    return info;
  }
  const events: string[] = [];
  if (has(ep, Cluster.OCCUPANCY)) events.push('motion', 'no_motion');
  if (has(ep, Cluster.IAS_ZONE)) events.push(...zoneEvents(d.ias?.zoneType ?? 0), 'tamper');
  if (ep.outClusters.includes(Cluster.ON_OFF) || ep.outClusters.includes(Cluster.LEVEL))
    events.push(...REMOTE_EVENTS);
  if (ep.outClusters.includes(Cluster.SCENES))
    events.push('recall_scene_1', 'recall_scene_2', 'recall_scene_3');
  if (ep.outClusters.includes(Cluster.SCENES) && /^IKEA/i.test(d.manufacturer ?? ''))
    events.push(...IKEA_ARROW_EVENTS);
  if (d.endpoints.some((e) => has(e, HUE_BUTTON_CLUSTER))) events.push(...HUE_DIMMER_EVENTS);
  info.events = events;
  return info;
}
