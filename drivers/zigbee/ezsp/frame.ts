/**
 * EZSP frames (docs/zigbee.md#ezsp): sequence number, frame control and frame id, then the parameters.
 * The first `version` command goes in the legacy format (one frame-control byte, one frame-id byte);
 * from protocol version 8 on, every frame uses the extended format: frame control low byte (bit 7 set in
 * a response, bits 3-4 the callback type), high byte 0x01 (frame format version 1), a 16-bit frame id.
 */

export const LEGACY_VERSION_ID = 0x00;
/** Frame control high byte: frame format version 1 (no security, no padding). */
const FC_HIGH = 0x01;
const FC_RESPONSE = 0x80;
/** Callback type bits of a response's frame control: 1 synchronous, 2 asynchronous. */
const FC_CALLBACK_MASK = 0x18;
const FC_TRUNCATED = 0x02;
const FC_OVERFLOW = 0x01;

export interface EzspFrame {
  seq: number;
  response: boolean;
  /** A callback the NCP sent on its own (not the answer to a command). */
  callback: boolean;
  /** The NCP ran out of memory or truncated the answer (diagnostics). */
  overflow: boolean;
  truncated: boolean;
  frameId: number;
  params: Buffer;
}

/** A command (host → NCP) in the extended format. */
export function encodeCommand(seq: number, frameId: number, params: Buffer): Buffer {
  const h = Buffer.alloc(5);
  h[0] = seq & 0xff;
  h[1] = 0x00;
  h[2] = FC_HIGH;
  h.writeUInt16LE(frameId, 3);
  return Buffer.concat([h, params]);
}

/** The first `version` command, in the legacy format every protocol version understands. */
export function encodeLegacyVersion(seq: number, desired: number): Buffer {
  return Buffer.of(seq & 0xff, 0x00, LEGACY_VERSION_ID, desired);
}

/** A response or callback (NCP → host) in the extended format; `legacy` for the answer to the first version. */
export function encodeResponse(
  seq: number,
  frameId: number,
  params: Buffer,
  opts: { callback?: boolean; legacy?: boolean } = {},
): Buffer {
  if (opts.legacy) return Buffer.concat([Buffer.of(seq & 0xff, FC_RESPONSE, frameId & 0xff), params]);
  const h = Buffer.alloc(5);
  h[0] = seq & 0xff;
  h[1] = FC_RESPONSE | (opts.callback ? 0x10 : 0);
  h[2] = FC_HIGH;
  h.writeUInt16LE(frameId, 3);
  return Buffer.concat([h, params]);
}

/**
 * Decodes either format: the extended one has frame format version 1 in the second frame-control byte;
 * a legacy frame is three header bytes (its frame id 0x00 is `version`, or 0xFF followed by the
 * extended header of old protocol versions, which Hearth does not speak).
 */
export function decodeFrame(b: Buffer): EzspFrame | null {
  if (b.length < 3) return null;
  const fc = b[1] as number;
  const extended = b.length >= 5 && ((b[2] as number) & 0x03) === FC_HIGH;
  const base = {
    seq: b[0] as number,
    response: !!(fc & FC_RESPONSE),
    callback: !!(fc & FC_RESPONSE) && (fc & FC_CALLBACK_MASK) !== 0,
    overflow: !!(fc & FC_RESPONSE) && !!(fc & FC_OVERFLOW),
    truncated: !!(fc & FC_RESPONSE) && !!(fc & FC_TRUNCATED),
  };
  if (extended) return { ...base, frameId: b.readUInt16LE(3), params: b.subarray(5) };
  return { ...base, frameId: b[2] as number, params: b.subarray(3) };
}

/** Frame ids of the commands and callbacks Hearth uses (UG100, EmberZNet 7.x/8.x). */
export const FrameId = {
  version: 0x0000,
  addEndpoint: 0x0002,
  nop: 0x0005,
  getMfgToken: 0x000b,
  setMfgToken: 0x000c,
  setConcentrator: 0x0010,
  networkInit: 0x0017,
  networkState: 0x0018,
  stackStatusHandler: 0x0019,
  formNetwork: 0x001e,
  leaveNetwork: 0x0020,
  permitJoining: 0x0022,
  childJoinHandler: 0x0023,
  trustCenterJoinHandler: 0x0024,
  getEui64: 0x0026,
  getNodeId: 0x0027,
  getNetworkParameters: 0x0028,
  sendUnicast: 0x0034,
  sendBroadcast: 0x0036,
  sendMulticast: 0x0038,
  messageSentHandler: 0x003f,
  incomingMessageHandler: 0x0045,
  getConfigurationValue: 0x0052,
  setConfigurationValue: 0x0053,
  setPolicy: 0x0055,
  incomingRouteRecordHandler: 0x0059,
  setMulticastTableEntry: 0x0064,
  addOrUpdateKeyTableEntry: 0x0066,
  setInitialSecurityState: 0x0068,
  getCurrentSecurityState: 0x0069,
  getKey: 0x006a,
  getKeyTableEntry: 0x0071,
  setValue: 0x00ab,
  getValue: 0x00aa,
  addTransientLinkKey: 0x00af,
  aesMmoHash: 0x006f,
  setSourceRoute: 0x00ae,
  getNetworkKeyInfo: 0x0116,
  importTransientKey: 0x0111,
  importLinkKey: 0x010e,
  exportLinkKeyByIndex: 0x010f,
  exportKey: 0x0114,
  /** The NCP's answer to a frame id it does not know (EzspStatus reason), with the command's sequence. */
  invalidCommand: 0x0058,
  /** Token interface (protocol 9 and later): NVM3 tokens by key and index (docs/zigbee.md#ezsp). */
  getTokenData: 0x0102,
  setTokenData: 0x0103,
} as const;
export type FrameName = keyof typeof FrameId;
export const frameName = (id: number): FrameName | undefined =>
  (Object.keys(FrameId) as FrameName[]).find((k) => FrameId[k] === id);
