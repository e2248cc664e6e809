/**
 * Interviewing a device that joined: node descriptor, active endpoints, simple descriptors, Basic
 * manufacturer and model; then binding the clusters Hearth listens to and configuring their reporting.
 */
import { definitionOf, type ZigbeeDeviceRecord } from './device.ts';
import { enrollIas } from './ias.ts';
import { HEARTH_ENDPOINT, type ZdoRequests } from './radio.ts';
import { Attr, Cluster } from './zcl/clusters.ts';
import type { ReportingConfig } from './zcl/foundation.ts';
import { DataType } from './zcl/types.ts';
import { HUE_BUTTON_CLUSTER } from './zcl/vendor-remotes.ts';
import type { ZclClient } from './zcl-client.ts';

/** Reporting: at most every second, at least every five minutes (a heartbeat for reconciliation). */
const REPORTING: Record<number, ReportingConfig[]> = {
  [Cluster.ON_OFF]: [{ attr: Attr.ON_OFF, type: DataType.BOOL, minSeconds: 0, maxSeconds: 300 }],
  [Cluster.LEVEL]: [
    { attr: Attr.LEVEL_CURRENT, type: DataType.UINT8, minSeconds: 1, maxSeconds: 300, change: 1 },
  ],
  [Cluster.COLOR]: [
    { attr: Attr.COLOR_TEMP, type: DataType.UINT16, minSeconds: 1, maxSeconds: 300, change: 1 },
    { attr: Attr.COLOR_X, type: DataType.UINT16, minSeconds: 1, maxSeconds: 300, change: 16 },
    { attr: Attr.COLOR_Y, type: DataType.UINT16, minSeconds: 1, maxSeconds: 300, change: 16 },
    { attr: Attr.COLOR_MODE, type: DataType.ENUM8, minSeconds: 1, maxSeconds: 300 },
  ],
  [Cluster.OCCUPANCY]: [{ attr: Attr.OCCUPANCY, type: DataType.BITMAP8, minSeconds: 0, maxSeconds: 600 }],
  // Measurements: at most every 10 s, at least hourly; 0.1 °C, 1 %, 1 hPa, a tenth of a decade of lux.
  [Cluster.TEMPERATURE]: [
    { attr: Attr.MEASURED_VALUE, type: DataType.INT16, minSeconds: 10, maxSeconds: 3600, change: 10 },
  ],
  [Cluster.HUMIDITY]: [
    { attr: Attr.MEASURED_VALUE, type: DataType.UINT16, minSeconds: 10, maxSeconds: 3600, change: 100 },
  ],
  [Cluster.PRESSURE]: [
    { attr: Attr.MEASURED_VALUE, type: DataType.INT16, minSeconds: 10, maxSeconds: 3600, change: 1 },
  ],
  [Cluster.ILLUMINANCE]: [
    { attr: Attr.MEASURED_VALUE, type: DataType.UINT16, minSeconds: 10, maxSeconds: 3600, change: 1000 },
  ],
};

/** Commands a remote sends: bound to the coordinator so its buttons reach Hearth. */
const REMOTE_CLUSTERS: number[] = [Cluster.ON_OFF, Cluster.LEVEL, Cluster.SCENES];

export async function interview(
  adapter: ZdoRequests,
  zcl: ZclClient,
  coordinatorIeee: string,
  ieee: string,
  nwk: number,
  zoneId = 0,
): Promise<ZigbeeDeviceRecord> {
  const rec: ZigbeeDeviceRecord = { ieee, nwk, endpoints: [], interviewed: false };
  await adapter.nodeDescriptor(nwk);
  for (const id of await adapter.activeEndpoints(nwk)) {
    const s = await adapter.simpleDescriptor(nwk, id);
    rec.endpoints.push({ id, deviceId: s.deviceId, inClusters: s.inClusters, outClusters: s.outClusters });
  }
  const basic = rec.endpoints.find((e) => e.inClusters.includes(Cluster.BASIC));
  if (basic) {
    const attrs = await zcl
      .read({ ieee, nwk, endpoint: basic.id }, Cluster.BASIC, [Attr.BASIC_MANUFACTURER, Attr.BASIC_MODEL])
      .catch(() => []);
    for (const a of attrs) {
      if (a.attr === Attr.BASIC_MANUFACTURER) rec.manufacturer = String(a.value);
      if (a.attr === Attr.BASIC_MODEL) rec.model = String(a.value);
    }
  }
  const definition = definitionOf(rec)?.definition;
  const setUp = definition?.setUp !== false;
  for (const ep of rec.endpoints) {
    const dest = { ieee, nwk, endpoint: ep.id };
    const bind = (clusterId: number) =>
      adapter.bind(nwk, {
        srcIeee: ieee,
        srcEndpoint: ep.id,
        cluster: clusterId,
        dstIeee: coordinatorIeee,
        dstEndpoint: HEARTH_ENDPOINT,
      });
    for (const cluster of setUp ? ep.inClusters : []) {
      const configs = definition?.reporting?.[cluster] ?? REPORTING[cluster];
      if (!configs) continue;
      await bind(cluster);
      await zcl.configureReporting(dest, cluster, configs);
    }
    if (setUp) {
      for (const cluster of ep.outClusters) if (REMOTE_CLUSTERS.includes(cluster)) await bind(cluster);
      // The Hue dimmer sends its button events from this server cluster, to whoever is bound to it.
      if (ep.inClusters.includes(HUE_BUTTON_CLUSTER)) await bind(HUE_BUTTON_CLUSTER);
      for (const c of definition?.bind ?? []) if (ep.outClusters.includes(c)) await bind(c);
    }
    // An IAS zone reports nothing until it is enrolled with a CIE (docs/zigbee.md#ias-zone-sensors).
    if (ep.inClusters.includes(Cluster.IAS_ZONE) && !rec.ias)
      rec.ias = await enrollIas(zcl, dest, coordinatorIeee, zoneId);
    if (ep.inClusters.includes(Cluster.COLOR)) {
      const attrs = await zcl
        .read(dest, Cluster.COLOR, [Attr.COLOR_CAPABILITIES, Attr.COLOR_TEMP_MIN, Attr.COLOR_TEMP_MAX])
        .catch(() => []);
      const v = (attr: number) => attrs.find((a) => a.attr === attr)?.value;
      const caps = v(Attr.COLOR_CAPABILITIES);
      if (typeof caps === 'number') rec.colorCapabilities = caps;
      const min = v(Attr.COLOR_TEMP_MIN);
      const max = v(Attr.COLOR_TEMP_MAX);
      if (typeof min === 'number' && typeof max === 'number' && min > 0 && max >= min) rec.ct = { min, max };
    }
  }
  rec.interviewed = true;
  return rec;
}
