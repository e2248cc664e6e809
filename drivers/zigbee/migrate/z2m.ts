/**
 * What a zigbee2mqtt data directory says about its devices (docs/zigbee.md#moving-from-zigbee2mqtt-or-zha):
 * `database.db` holds one JSON object per line (zigbee-herdsman's device records: `ieeeAddr`, `nwkAddr`,
 * `manufName`, `modelId`, `endpoints` keyed by endpoint id with `devId`, `inClusterList`,
 * `outClusterList` and the attributes read in `clusters`), `configuration.yaml` (or the file its
 * `devices:` names) the friendly names, keyed by IEEE address.
 */
import { parse as parseYaml } from 'yaml';
import type { EndpointRecord, ZigbeeDeviceRecord } from '../device.ts';
import { Cluster } from '../zcl/clusters.ts';
import type { OpenBackupDevice } from './open-backup.ts';

const IEEE = /^0x[0-9a-f]{16}$/;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const nums = (v: unknown): number[] =>
  Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x) && x >= 0 && x <= 0xffff) : [];

/** The attributes zigbee-herdsman read from a cluster (`clusters.<name>.attributes`). */
const attrsOf = (ep: Json, cluster: string): Json => {
  const c = isObj(ep.clusters) ? ep.clusters[cluster] : undefined;
  return isObj(c) && isObj(c.attributes) ? c.attributes : {};
};

/** One database line as a Hearth device record; null for the coordinator, a group or a bad line. */
export function deviceFromZ2m(entry: unknown): ZigbeeDeviceRecord | null {
  if (!isObj(entry) || entry.type === 'Coordinator' || entry.type === 'Group') return null;
  const ieee = typeof entry.ieeeAddr === 'string' ? entry.ieeeAddr.toLowerCase() : '';
  const nwk = entry.nwkAddr;
  if (!IEEE.test(ieee) || !Number.isInteger(nwk) || (nwk as number) < 0 || (nwk as number) > 0xfff7)
    return null;
  const rec: ZigbeeDeviceRecord = { ieee, nwk: nwk as number, endpoints: [], interviewed: false };
  if (typeof entry.manufName === 'string') rec.manufacturer = entry.manufName.slice(0, 100);
  if (typeof entry.modelId === 'string') rec.model = entry.modelId.slice(0, 100);
  const eps = isObj(entry.endpoints) ? entry.endpoints : {};
  for (const [key, raw] of Object.entries(eps)) {
    if (!isObj(raw)) continue;
    const id = Number(raw.epId ?? key);
    if (!Number.isInteger(id) || id < 1 || id > 240) continue;
    const ep: EndpointRecord = {
      id,
      deviceId: Number.isInteger(raw.devId) ? (raw.devId as number) : 0,
      inClusters: nums(raw.inClusterList),
      outClusters: nums(raw.outClusterList),
    };
    rec.endpoints.push(ep);
    if (ep.inClusters.includes(Cluster.COLOR)) {
      const a = attrsOf(raw, 'lightingColorCtrl');
      if (Number.isInteger(a.colorCapabilities)) rec.colorCapabilities = a.colorCapabilities as number;
      const min = a.colorTempPhysicalMin;
      const max = a.colorTempPhysicalMax;
      if (typeof min === 'number' && typeof max === 'number' && min > 0 && max >= min) rec.ct = { min, max };
    }
    if (ep.inClusters.includes(Cluster.IAS_ZONE)) {
      const a = attrsOf(raw, 'ssIasZone');
      if (Number.isInteger(a.zoneType) && Number.isInteger(a.zoneId))
        rec.ias = { zoneType: a.zoneType as number, zoneId: a.zoneId as number };
    }
  }
  rec.endpoints.sort((a, b) => a.id - b.id);
  // Hearth binds and configures reporting itself: a device zigbee2mqtt interviewed is taken as
  // interviewed only with its endpoints known; the driver interviews the others when they talk.
  rec.interviewed = entry.interviewCompleted === true && rec.endpoints.length > 0;
  return rec;
}

/** `database.db`: newline-delimited JSON; lines that are not a device are skipped. */
export function devicesFromDatabase(text: string): ZigbeeDeviceRecord[] {
  const out: ZigbeeDeviceRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const rec = deviceFromZ2m(entry);
    if (rec && !out.some((d) => d.ieee === rec.ieee)) out.push(rec);
  }
  return out;
}

/**
 * Friendly names from `configuration.yaml` (its `devices:` map) and, when `devices:` names a file, from
 * that file's text. Keys are IEEE addresses.
 */
export function friendlyNames(configuration: string | undefined, devicesFile?: string): Map<string, string> {
  const names = new Map<string, string>();
  const take = (map: unknown) => {
    if (!isObj(map)) return;
    for (const [ieee, v] of Object.entries(map)) {
      const name = isObj(v) && typeof v.friendly_name === 'string' ? v.friendly_name.trim() : '';
      if (IEEE.test(ieee.toLowerCase()) && name) names.set(ieee.toLowerCase(), name.slice(0, 200));
    }
  };
  const conf = configuration ? (parseYaml(configuration) as unknown) : null;
  if (isObj(conf)) take(conf.devices);
  if (devicesFile) take(parseYaml(devicesFile) as unknown);
  return names;
}

/** The file `devices:` in configuration.yaml points to, if it is a file name. */
export function devicesFileName(configuration: string | undefined): string | null {
  if (!configuration) return null;
  const conf = parseYaml(configuration) as unknown;
  if (!isObj(conf)) return null;
  const d = conf.devices;
  const file = typeof d === 'string' ? d : Array.isArray(d) && typeof d[0] === 'string' ? d[0] : null;
  return file && /^[\w.-]+\.ya?ml$/.test(file) ? file : null;
}

/**
 * The device table an import gives the driver: every device of the database (with the backup's newer
 * network address when it has one), then those only the backup knows, as bare records to interview.
 */
export function mergeDevices(
  database: ZigbeeDeviceRecord[],
  backup: OpenBackupDevice[],
): ZigbeeDeviceRecord[] {
  const out = database.map((d) => {
    const b = backup.find((x) => x.ieee === d.ieee);
    return b?.nwk !== null && b?.nwk !== undefined ? { ...d, nwk: b.nwk } : d;
  });
  for (const b of backup)
    if (b.nwk !== null && !out.some((d) => d.ieee === b.ieee))
      out.push({ ieee: b.ieee, nwk: b.nwk, endpoints: [], interviewed: false });
  return out;
}
