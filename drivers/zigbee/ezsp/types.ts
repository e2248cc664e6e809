/**
 * The EZSP structures and the parameter layouts that changed between protocol versions (docs/zigbee.md#ezsp).
 * Protocol 14 (EmberZNet 8.x) replaced the one-byte EmberStatus/EzspStatus by the four-byte sl_Status,
 * moved the status first in answers and widened message tags; here every status is an EmberStatus value
 * whatever the wire carried, so the adapter checks one set of codes.
 */
import { type Reader, Writer } from './codec.ts';

/** EmberStatus codes the adapter acts on. */
export const EmberStatus = {
  SUCCESS: 0x00,
  ERR_FATAL: 0x01,
  NO_BUFFERS: 0x18,
  MAC_NO_ACK_RECEIVED: 0x40,
  DELIVERY_FAILED: 0x66,
  INVALID_CALL: 0x70,
  MAX_MESSAGE_LIMIT_REACHED: 0x72,
  NETWORK_UP: 0x90,
  NETWORK_DOWN: 0x91,
  NOT_JOINED: 0x93,
  NETWORK_OPENED: 0x9c,
  NETWORK_CLOSED: 0x9d,
  NETWORK_BUSY: 0xa1,
  SOURCE_ROUTE_FAILURE: 0xa9,
} as const;

/** sl_Status (protocol 14+) ↔ EmberStatus for the codes above. */
const SL_TO_EMBER: Array<[number, number]> = [
  [0x0000, EmberStatus.SUCCESS],
  [0x0001, EmberStatus.ERR_FATAL],
  [0x0019, EmberStatus.NO_BUFFERS],
  [0x0040, EmberStatus.MAC_NO_ACK_RECEIVED],
  [0x0c02, EmberStatus.DELIVERY_FAILED],
  [0x0021, EmberStatus.INVALID_CALL],
  [0x0c03, EmberStatus.MAX_MESSAGE_LIMIT_REACHED],
  [0x0015, EmberStatus.NETWORK_UP],
  [0x0016, EmberStatus.NETWORK_DOWN],
  [0x0017, EmberStatus.NOT_JOINED],
  [0x0c18, EmberStatus.NETWORK_OPENED],
  [0x0c19, EmberStatus.NETWORK_CLOSED],
  [0x0c0c, EmberStatus.NETWORK_BUSY],
  [0x0c13, EmberStatus.SOURCE_ROUTE_FAILURE],
];

export function readStatus(r: Reader, version: number): number {
  if (version < 14) return r.u8();
  const sl = r.u32();
  return SL_TO_EMBER.find(([s]) => s === sl)?.[1] ?? EmberStatus.ERR_FATAL;
}

export function writeStatus(w: Writer, version: number, ember: number): Writer {
  if (version < 14) return w.u8(ember);
  return w.u32(SL_TO_EMBER.find(([, e]) => e === ember)?.[0] ?? 0x0001);
}

export const ConfigId = {
  PACKET_BUFFER_COUNT: 0x01,
  NEIGHBOR_TABLE_SIZE: 0x02,
  APS_UNICAST_MESSAGE_COUNT: 0x03,
  BINDING_TABLE_SIZE: 0x04,
  ADDRESS_TABLE_SIZE: 0x05,
  MULTICAST_TABLE_SIZE: 0x06,
  ROUTE_TABLE_SIZE: 0x07,
  DISCOVERY_TABLE_SIZE: 0x08,
  STACK_PROFILE: 0x0c,
  SECURITY_LEVEL: 0x0d,
  MAX_HOPS: 0x10,
  MAX_END_DEVICE_CHILDREN: 0x11,
  INDIRECT_TRANSMISSION_TIMEOUT: 0x12,
  END_DEVICE_POLL_TIMEOUT: 0x13,
  TRUST_CENTER_ADDRESS_CACHE_SIZE: 0x19,
  SOURCE_ROUTE_TABLE_SIZE: 0x1a,
  KEY_TABLE_SIZE: 0x1e,
  APS_ACK_TIMEOUT: 0x1f,
} as const;

export const PolicyId = {
  TRUST_CENTER: 0x00,
  BINDING_MODIFICATION: 0x01,
  MESSAGE_CONTENTS_IN_CALLBACK: 0x04,
  TC_KEY_REQUEST: 0x05,
  APP_KEY_REQUEST: 0x06,
} as const;

export const Decision = {
  /** Trust centre policy bitmask: allow joins, allow unsecured rejoins. */
  TC_ALLOW_JOINS_AND_REJOINS: 0x0003,
  CHECK_BINDING_MODIFICATIONS_ARE_VALID_ENDPOINT_CLUSTERS: 0x12,
  MESSAGE_TAG_ONLY_IN_CALLBACK: 0x40,
  ALLOW_TC_KEY_REQUESTS_AND_SEND_CURRENT_KEY: 0x51,
  DENY_APP_KEY_REQUESTS: 0x60,
} as const;

export const ValueId = {
  NWK_FRAME_COUNTER: 0x23,
  APS_FRAME_COUNTER: 0x24,
} as const;

export const OutgoingType = { DIRECT: 0x00, MULTICAST: 0x03, BROADCAST: 0x06 } as const;
export const IncomingType = { UNICAST: 0x00, UNICAST_REPLY: 0x01, MULTICAST: 0x02, BROADCAST: 0x04 } as const;

/** EmberDeviceUpdate in trustCenterJoinHandler. */
export const DeviceUpdate = {
  SECURED_REJOIN: 0x00,
  UNSECURED_JOIN: 0x01,
  DEVICE_LEFT: 0x02,
  UNSECURED_REJOIN: 0x03,
} as const;

export const NetworkStatus = { NO_NETWORK: 0x00, JOINED_NETWORK: 0x02 } as const;

/** APS options: retry (APS acknowledgement requested) and route discovery when no route is known. */
export const APS_OPTION_RETRY = 0x0040;
export const APS_OPTION_ENABLE_ROUTE_DISCOVERY = 0x0100;

/** EmberInitialSecurityBitmask bits for a centralised trust centre forming its network. */
export const InitialSecurity = {
  TRUST_CENTER_GLOBAL_LINK_KEY: 0x0004,
  HAVE_TRUST_CENTER_EUI64: 0x0040,
  TRUST_CENTER_USES_HASHED_LINK_KEY: 0x0084,
  HAVE_PRECONFIGURED_KEY: 0x0100,
  HAVE_NETWORK_KEY: 0x0200,
  REQUIRE_ENCRYPTED_KEY: 0x0800,
  NO_FRAME_COUNTER_RESET: 0x1000,
} as const;

export interface ApsFrame {
  profileId: number;
  clusterId: number;
  sourceEndpoint: number;
  destinationEndpoint: number;
  options: number;
  groupId: number;
  sequence: number;
}

export function writeAps(w: Writer, a: ApsFrame): Writer {
  return w
    .u16(a.profileId)
    .u16(a.clusterId)
    .u8(a.sourceEndpoint)
    .u8(a.destinationEndpoint)
    .u16(a.options)
    .u16(a.groupId)
    .u8(a.sequence);
}

export function readAps(r: Reader): ApsFrame {
  return {
    profileId: r.u16(),
    clusterId: r.u16(),
    sourceEndpoint: r.u8(),
    destinationEndpoint: r.u8(),
    options: r.u16(),
    groupId: r.u16(),
    sequence: r.u8(),
  };
}

export interface EmberNetworkParameters {
  /** 16 hex digits, most significant first (as Hearth keeps it). */
  extendedPanId: string;
  panId: number;
  radioTxPower: number;
  radioChannel: number;
  joinMethod: number;
  nwkManagerId: number;
  nwkUpdateId: number;
  channels: number;
}

export function writeNetworkParameters(w: Writer, p: EmberNetworkParameters): Writer {
  return w
    .ieee(`0x${p.extendedPanId}`)
    .u16(p.panId)
    .u8(p.radioTxPower)
    .u8(p.radioChannel)
    .u8(p.joinMethod)
    .u16(p.nwkManagerId)
    .u8(p.nwkUpdateId)
    .u32(p.channels);
}

export function readNetworkParameters(r: Reader): EmberNetworkParameters {
  return {
    extendedPanId: r.ieee().slice(2),
    panId: r.u16(),
    radioTxPower: r.u8(),
    radioChannel: r.u8(),
    joinMethod: r.u8(),
    nwkManagerId: r.u16(),
    nwkUpdateId: r.u8(),
    channels: r.u32(),
  };
}

export interface InitialSecurityState {
  bitmask: number;
  preconfiguredKey: Buffer;
  networkKey: Buffer;
  networkKeySequenceNumber: number;
  preconfiguredTrustCenterEui64: string;
}

export function writeInitialSecurity(w: Writer, s: InitialSecurityState): Writer {
  return w
    .u16(s.bitmask)
    .bytes(s.preconfiguredKey)
    .bytes(s.networkKey)
    .u8(s.networkKeySequenceNumber)
    .ieee(s.preconfiguredTrustCenterEui64);
}

export function readInitialSecurity(r: Reader): InitialSecurityState {
  return {
    bitmask: r.u16(),
    preconfiguredKey: r.bytes(16),
    networkKey: r.bytes(16),
    networkKeySequenceNumber: r.u8(),
    preconfiguredTrustCenterEui64: r.ieee(),
  };
}

/** A message send in either protocol generation (the adapter's view). */
export interface SendUnicast {
  type: number;
  destination: number;
  aps: ApsFrame;
  tag: number;
  contents: Buffer;
}

export function writeSendUnicast(v: number, m: SendUnicast): Buffer {
  const w = new Writer().u8(m.type).u16(m.destination);
  writeAps(w, m.aps);
  if (v < 14) w.u8(m.tag);
  else w.u16(m.tag);
  return w.lv(m.contents).done();
}

export function readSendUnicast(v: number, r: Reader): SendUnicast {
  const type = r.u8();
  const destination = r.u16();
  const aps = readAps(r);
  const tag = v < 14 ? r.u8() : r.u16();
  return { type, destination, aps, tag, contents: r.lv() };
}

export interface SendMulticast {
  aps: ApsFrame;
  hops: number;
  nonmemberRadius: number;
  tag: number;
  contents: Buffer;
}

export function writeSendMulticast(v: number, m: SendMulticast): Buffer {
  const w = writeAps(new Writer(), m.aps).u8(m.hops);
  // Protocol 14: the broadcast address non-members relay to (0xFFFD, rx-on-when-idle), no alias, no sequence.
  if (v < 14) w.u8(m.nonmemberRadius).u8(m.tag);
  else w.u16(0xfffd).u16(0).u8(0).u16(m.tag);
  return w.lv(m.contents).done();
}

export function readSendMulticast(v: number, r: Reader): SendMulticast {
  const aps = readAps(r);
  const hops = r.u8();
  let nonmemberRadius = 0;
  let tag: number;
  if (v < 14) {
    nonmemberRadius = r.u8();
    tag = r.u8();
  } else {
    r.u16();
    r.u16();
    r.u8();
    tag = r.u16();
  }
  return { aps, hops, nonmemberRadius, tag, contents: r.lv() };
}

export interface SendBroadcast {
  destination: number;
  aps: ApsFrame;
  radius: number;
  tag: number;
  contents: Buffer;
}

export function writeSendBroadcast(v: number, m: SendBroadcast): Buffer {
  const w = new Writer();
  if (v < 14) w.u16(m.destination);
  else w.u16(0).u16(m.destination).u8(0);
  writeAps(w, m.aps).u8(m.radius);
  if (v < 14) w.u8(m.tag);
  else w.u16(m.tag);
  return w.lv(m.contents).done();
}

export function readSendBroadcast(v: number, r: Reader): SendBroadcast {
  let destination: number;
  if (v < 14) destination = r.u16();
  else {
    r.u16();
    destination = r.u16();
    r.u8();
  }
  const aps = readAps(r);
  const radius = r.u8();
  const tag = v < 14 ? r.u8() : r.u16();
  return { destination, aps, radius, tag, contents: r.lv() };
}

/** The answer to a send: its status and the APS sequence number the frame got. */
export function writeSendAnswer(v: number, status: number, sequence: number): Buffer {
  return writeStatus(new Writer(), v, status).u8(sequence).done();
}

export interface MessageSent {
  type: number;
  destination: number;
  aps: ApsFrame;
  tag: number;
  status: number;
}

export function writeMessageSent(v: number, m: MessageSent): Buffer {
  const w = new Writer();
  if (v < 14) {
    w.u8(m.type).u16(m.destination);
    writeAps(w, m.aps).u8(m.tag);
    writeStatus(w, v, m.status);
  } else {
    writeStatus(w, v, m.status).u8(m.type).u16(m.destination);
    writeAps(w, m.aps).u16(m.tag);
  }
  return w.lv(Buffer.alloc(0)).done();
}

export function readMessageSent(v: number, r: Reader): MessageSent {
  if (v < 14) {
    const type = r.u8();
    const destination = r.u16();
    const aps = readAps(r);
    const tag = r.u8();
    return { type, destination, aps, tag, status: readStatus(r, v) };
  }
  const status = readStatus(r, v);
  const type = r.u8();
  const destination = r.u16();
  const aps = readAps(r);
  return { type, destination, aps, tag: r.u16(), status };
}

export interface IncomingMessage {
  type: number;
  aps: ApsFrame;
  lqi: number;
  rssi: number;
  sender: number;
  contents: Buffer;
}

export function writeIncomingMessage(
  v: number,
  m: IncomingMessage,
  senderIeee = '0x0000000000000000',
): Buffer {
  const w = writeAps(new Writer().u8(m.type), m.aps);
  if (v < 14) w.u8(m.lqi).i8(m.rssi).u16(m.sender).u8(0xff).u8(0xff);
  else w.u16(m.sender).ieee(senderIeee).u8(0xff).u8(0xff).u8(m.lqi).i8(m.rssi).u32(0);
  return w.lv(m.contents).done();
}

export function readIncomingMessage(v: number, r: Reader): IncomingMessage {
  const type = r.u8();
  const aps = readAps(r);
  if (v < 14) {
    const lqi = r.u8();
    const rssi = r.i8();
    const sender = r.u16();
    r.u8();
    r.u8();
    return { type, aps, lqi, rssi, sender, contents: r.lv() };
  }
  const sender = r.u16();
  r.ieee();
  r.u8();
  r.u8();
  const lqi = r.u8();
  const rssi = r.i8();
  r.u32();
  return { type, aps, lqi, rssi, sender, contents: r.lv() };
}
