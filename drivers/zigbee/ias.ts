/**
 * IAS zone devices (motion, contact, water sensors that speak the security cluster rather than Occupancy):
 * enrolment with the coordinator as their CIE, and zone status changes as sensor events
 * (docs/zigbee.md#ias-zone-sensors).
 */

import type { Destination } from './radio.ts';
import { Attr, Cluster, IasZoneCmd, IasZoneType } from './zcl/clusters.ts';
import type { ClusterCommand } from './zcl/commands.ts';
import { DataType } from './zcl/types.ts';
import type { ZclClient } from './zcl-client.ts';

export interface IasRecord {
  zoneType: number;
  /** The zone id Hearth gave the device in its enroll response (0..0xFE). */
  zoneId: number;
}

/** Enroll response code 0x00: success (ZCL r7 §8.2.2.3.1). */
export const enrollResponse = (zoneId: number): ClusterCommand => ({
  cluster: Cluster.IAS_ZONE,
  command: IasZoneCmd.ENROLL_RESPONSE,
  payload: Buffer.of(0x00, zoneId & 0xff),
});

/**
 * Writes the coordinator's IEEE address as the device's CIE address (required before any notification),
 * reads its zone type, and sends an enroll response unasked: that serves devices that wait for one
 * (auto-enroll-response); a device that asks instead (trip-to-pair) is answered when its request arrives.
 */
export async function enrollIas(
  zcl: ZclClient,
  dest: Destination,
  coordinatorIeee: string,
  zoneId: number,
): Promise<IasRecord> {
  await zcl.write(dest, Cluster.IAS_ZONE, [
    { attr: Attr.IAS_CIE_ADDRESS, type: DataType.IEEE_ADDR, value: coordinatorIeee },
  ]);
  const attrs = await zcl.read(dest, Cluster.IAS_ZONE, [Attr.IAS_ZONE_TYPE]).catch(() => []);
  const type = attrs.find((a) => a.attr === Attr.IAS_ZONE_TYPE)?.value;
  await zcl.command(dest, enrollResponse(zoneId));
  return { zoneType: typeof type === 'number' ? type : 0, zoneId };
}

/** The alarm event pair for a zone type: [alarm1 set, alarm1 clear]. */
export function zoneEvents(zoneType: number): [string, string] {
  switch (zoneType) {
    case IasZoneType.MOTION:
      return ['motion', 'no_motion'];
    case IasZoneType.CONTACT:
      return ['open', 'closed'];
    case IasZoneType.WATER:
      return ['water_leak', 'dry'];
    default:
      return ['alarm', 'clear'];
  }
}

/** ZoneStatus bits (ZCL r7 §8.2.2.2.1.3): 0 Alarm1, 2 Tamper. */
const ALARM1 = 0x0001;
const TAMPER = 0x0004;

/**
 * The events of one zone status change notification: the alarm pair every time (a sensor repeats its
 * state as a heartbeat, and a repeated `motion` keeps a light on), and `tamper` when that bit rises.
 */
export function statusEvents(zoneType: number, status: number, previous: number | undefined): string[] {
  const [set, clear] = zoneEvents(zoneType);
  const out = [status & ALARM1 ? set : clear];
  if (status & TAMPER && !((previous ?? 0) & TAMPER)) out.push('tamper');
  return out;
}
