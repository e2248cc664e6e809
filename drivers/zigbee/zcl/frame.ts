/**
 * ZCL frames (docs/zigbee.md#zcl-frames-for-lights): frame control, optional manufacturer code, sequence
 * number, command id, payload. ZCL r7 §2.4.1.
 */

export const FrameKind = { GLOBAL: 0, CLUSTER: 1 } as const;

export interface ZclFrame {
  /** 0 global (profile-wide), 1 cluster-specific. */
  kind: 0 | 1;
  /** True for server → client (reports, responses, commands a remote sends to its bound lights are client → server). */
  fromServer: boolean;
  disableDefaultResponse: boolean;
  manufacturerCode?: number;
  tsn: number;
  command: number;
  payload: Buffer;
}

export class ZclFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZclFrameError';
  }
}

export function encodeZcl(f: ZclFrame): Buffer {
  const manuf = f.manufacturerCode !== undefined;
  const fc =
    (f.kind & 0x03) | (manuf ? 0x04 : 0) | (f.fromServer ? 0x08 : 0) | (f.disableDefaultResponse ? 0x10 : 0);
  const head = Buffer.alloc(manuf ? 5 : 3);
  head[0] = fc;
  let at = 1;
  if (manuf) {
    head.writeUInt16LE(f.manufacturerCode as number, 1);
    at = 3;
  }
  head[at] = f.tsn & 0xff;
  head[at + 1] = f.command & 0xff;
  return Buffer.concat([head, f.payload]);
}

export function decodeZcl(b: Buffer): ZclFrame {
  if (b.length < 3) throw new ZclFrameError('ZCL frame shorter than its header');
  const fc = b[0] as number;
  const kind = fc & 0x03;
  if (kind > 1) throw new ZclFrameError(`reserved ZCL frame type ${kind}`);
  const manuf = (fc & 0x04) !== 0;
  if (manuf && b.length < 5) throw new ZclFrameError('ZCL frame shorter than its header');
  const at = manuf ? 3 : 1;
  const frame: ZclFrame = {
    kind: kind as 0 | 1,
    fromServer: (fc & 0x08) !== 0,
    disableDefaultResponse: (fc & 0x10) !== 0,
    tsn: b[at] as number,
    command: b[at + 1] as number,
    payload: Buffer.from(b.subarray(at + 2)),
  };
  if (manuf) frame.manufacturerCode = b.readUInt16LE(1);
  return frame;
}
