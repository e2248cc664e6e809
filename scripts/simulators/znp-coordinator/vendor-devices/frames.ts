/**
 * Frames a simulated device sends on its own, from a chosen endpoint: attribute reports (also
 * unconfigured ones, as Xiaomi devices send them) and cluster commands, with an optional manufacturer code.
 */
import { Global } from '../../../../drivers/zigbee/zcl/clusters.ts';
import { type AttrRecord, encodeReport } from '../../../../drivers/zigbee/zcl/foundation.ts';
import { encodeZcl } from '../../../../drivers/zigbee/zcl/frame.ts';
import type { Outgoing } from '../devices.ts';

let tsn = 0x40;
const nextTsn = () => {
  tsn = (tsn + 1) & 0xff;
  return tsn;
};

export function reportFrom(
  endpoint: number,
  cluster: number,
  records: AttrRecord[],
  manufacturerCode?: number,
): Outgoing {
  return reportPayload(endpoint, cluster, encodeReport(records), manufacturerCode);
}

/** A report whose records are already encoded (a vendor's binary struct in a character string). */
export function reportPayload(
  endpoint: number,
  cluster: number,
  payload: Buffer,
  manufacturerCode?: number,
): Outgoing {
  const zcl = encodeZcl({
    kind: 0,
    fromServer: true,
    disableDefaultResponse: true,
    ...(manufacturerCode !== undefined ? { manufacturerCode } : {}),
    tsn: nextTsn(),
    command: Global.REPORT,
    payload,
  });
  return { cluster, srcEndpoint: endpoint, zcl };
}

/** A command a device sends: client → server (a remote to its lights), or server → client (Hue 0xFC00). */
export function commandFrom(
  endpoint: number,
  cluster: number,
  command: number,
  payload: Buffer = Buffer.alloc(0),
  opts: { manufacturerCode?: number; fromServer?: boolean } = {},
): Outgoing {
  const zcl = encodeZcl({
    kind: 1,
    fromServer: opts.fromServer ?? false,
    disableDefaultResponse: true,
    ...(opts.manufacturerCode !== undefined ? { manufacturerCode: opts.manufacturerCode } : {}),
    tsn: nextTsn(),
    command,
    payload,
  });
  return { cluster, srcEndpoint: endpoint, zcl };
}
