/**
 * The MT commands the driver speaks (docs/zigbee.md#commands-the-driver-needs): name, kind, subsystem,
 * id and payload fields. SREQs list their request fields and the fields of their SRSP; AREQs only `req`.
 */
import { decodeFields, encodeFields, type Field, type Fields } from './codec.ts';
import { type Frame, FrameType, Subsystem } from './unpi.ts';

interface Command {
  readonly type: typeof FrameType.SREQ | typeof FrameType.AREQ;
  readonly subsystem: number;
  readonly id: number;
  readonly req: readonly Field[];
  readonly rsp?: readonly Field[];
}

const status: Field = ['status', 'u8'];
const sreq = (subsystem: number, id: number, req: Field[], rsp: Field[] = [status]): Command => ({
  type: FrameType.SREQ,
  subsystem,
  id,
  req,
  rsp,
});
const areq = (subsystem: number, id: number, req: Field[]): Command => ({
  type: FrameType.AREQ,
  subsystem,
  id,
  req,
});
const { SYS, AF, ZDO, UTIL, APP_CNF } = Subsystem;

export const MT = {
  // SYS
  sysResetReq: areq(SYS, 0x00, [['type', 'u8']]),
  sysResetInd: areq(SYS, 0x80, [
    ['reason', 'u8'],
    ['transportRev', 'u8'],
    ['product', 'u8'],
    ['major', 'u8'],
    ['minor', 'u8'],
    ['maint', 'u8'],
  ]),
  sysPing: sreq(SYS, 0x01, [], [['capabilities', 'u16']]),
  sysVersion: sreq(
    SYS,
    0x02,
    [],
    [
      ['transportRev', 'u8'],
      ['product', 'u8'],
      ['major', 'u8'],
      ['minor', 'u8'],
      ['maint', 'u8'],
    ],
  ),
  sysOsalNvRead: sreq(
    SYS,
    0x08,
    [
      ['id', 'u16'],
      ['offset', 'u8'],
    ],
    [status, ['value', 'bytes']],
  ),
  sysOsalNvWrite: sreq(SYS, 0x09, [
    ['id', 'u16'],
    ['offset', 'u8'],
    ['value', 'bytes'],
  ]),
  // Extended NV items (SimpleLink Z-Stack 3.x.0): system id, item id, sub id (docs/zigbee.md)
  sysNvRead: sreq(
    SYS,
    0x33,
    [
      ['sysId', 'u8'],
      ['itemId', 'u16'],
      ['subId', 'u16'],
      ['offset', 'u16'],
      ['len', 'u8'],
    ],
    [status, ['value', 'bytes']],
  ),
  sysNvWrite: sreq(SYS, 0x34, [
    ['sysId', 'u8'],
    ['itemId', 'u16'],
    ['subId', 'u16'],
    ['offset', 'u16'],
    ['value', 'bytes'],
  ]),
  sysNvCreate: sreq(SYS, 0x30, [
    ['sysId', 'u8'],
    ['itemId', 'u16'],
    ['subId', 'u16'],
    ['len', 'u32'],
  ]),
  sysOsalNvItemInit: sreq(SYS, 0x07, [
    ['id', 'u16'],
    ['len', 'u16'],
    ['value', 'bytes'],
  ]),
  // UTIL
  utilGetDeviceInfo: sreq(
    UTIL,
    0x00,
    [],
    [
      status,
      ['ieee', 'ieee'],
      ['nwkAddr', 'u16'],
      ['deviceType', 'u8'],
      ['deviceState', 'u8'],
      ['assoc', 'u16list'],
    ],
  ),
  // AF
  afRegister: sreq(AF, 0x00, [
    ['endpoint', 'u8'],
    ['profileId', 'u16'],
    ['deviceId', 'u16'],
    ['deviceVersion', 'u8'],
    ['latency', 'u8'],
    ['inClusters', 'u16list'],
    ['outClusters', 'u16list'],
  ]),
  afDataRequest: sreq(AF, 0x01, [
    ['dstAddr', 'u16'],
    ['dstEndpoint', 'u8'],
    ['srcEndpoint', 'u8'],
    ['clusterId', 'u16'],
    ['transId', 'u8'],
    ['options', 'u8'],
    ['radius', 'u8'],
    ['data', 'bytes'],
  ]),
  /** AF_DATA_REQUEST_EXT: group (mode 1, endpoint 0xFF) or 64-bit addressing; the data length is a u16. */
  afDataRequestExt: sreq(AF, 0x02, [
    ['dstAddrMode', 'u8'],
    ['dstAddr', 'ieee'],
    ['dstEndpoint', 'u8'],
    ['dstPanId', 'u16'],
    ['srcEndpoint', 'u8'],
    ['clusterId', 'u16'],
    ['transId', 'u8'],
    ['options', 'u8'],
    ['radius', 'u8'],
    ['data', 'bytes16'],
  ]),
  afDataConfirm: areq(AF, 0x80, [status, ['endpoint', 'u8'], ['transId', 'u8']]),
  afIncomingMsg: areq(AF, 0x81, [
    ['groupId', 'u16'],
    ['clusterId', 'u16'],
    ['srcAddr', 'u16'],
    ['srcEndpoint', 'u8'],
    ['dstEndpoint', 'u8'],
    ['wasBroadcast', 'u8'],
    ['linkQuality', 'u8'],
    ['securityUse', 'u8'],
    ['timestamp', 'u32'],
    ['transSeq', 'u8'],
    ['data', 'bytes'],
    ['tail', 'rest'],
  ]),
  // ZDO requests (answered by an SRSP status, then the device's answer as an AREQ)
  zdoNwkAddrReq: sreq(ZDO, 0x00, [
    ['ieee', 'ieee'],
    ['reqType', 'u8'],
    ['startIndex', 'u8'],
  ]),
  zdoNodeDescReq: sreq(ZDO, 0x02, [
    ['dstAddr', 'u16'],
    ['nwkAddrOfInterest', 'u16'],
  ]),
  zdoSimpleDescReq: sreq(ZDO, 0x04, [
    ['dstAddr', 'u16'],
    ['nwkAddrOfInterest', 'u16'],
    ['endpoint', 'u8'],
  ]),
  zdoActiveEpReq: sreq(ZDO, 0x05, [
    ['dstAddr', 'u16'],
    ['nwkAddrOfInterest', 'u16'],
  ]),
  zdoBindReq: sreq(ZDO, 0x21, [
    ['dstAddr', 'u16'],
    ['srcIeee', 'ieee'],
    ['srcEndpoint', 'u8'],
    ['clusterId', 'u16'],
    ['dstAddrMode', 'u8'],
    ['dstIeee', 'ieee'],
    ['dstEndpoint', 'u8'],
  ]),
  zdoMgmtLeaveReq: sreq(ZDO, 0x34, [
    ['dstAddr', 'u16'],
    ['deviceIeee', 'ieee'],
    ['flags', 'u8'],
  ]),
  zdoMgmtPermitJoinReq: sreq(ZDO, 0x36, [
    ['addrMode', 'u8'],
    ['dstAddr', 'u16'],
    ['duration', 'u8'],
    ['tcSignificance', 'u8'],
  ]),
  zdoStartupFromApp: sreq(ZDO, 0x40, [['startDelay', 'u16']]),
  zdoExtRouteDisc: sreq(ZDO, 0x45, [
    ['dstAddr', 'u16'],
    ['options', 'u8'],
    ['radius', 'u8'],
  ]),
  // ZDO indications and answers
  zdoNwkAddrRsp: areq(ZDO, 0x80, [
    status,
    ['ieee', 'ieee'],
    ['nwkAddr', 'u16'],
    ['startIndex', 'u8'],
    ['assoc', 'u16list'],
  ]),
  zdoNodeDescRsp: areq(ZDO, 0x82, [
    ['srcAddr', 'u16'],
    status,
    ['nwkAddr', 'u16'],
    ['logicalType', 'u8'],
    ['apsFlags', 'u8'],
    ['macCapabilities', 'u8'],
    ['manufacturerCode', 'u16'],
    ['tail', 'rest'],
  ]),
  zdoSimpleDescRsp: areq(ZDO, 0x84, [
    ['srcAddr', 'u16'],
    status,
    ['nwkAddr', 'u16'],
    ['length', 'u8'],
    ['endpoint', 'u8'],
    ['profileId', 'u16'],
    ['deviceId', 'u16'],
    ['deviceVersion', 'u8'],
    ['inClusters', 'u16list'],
    ['outClusters', 'u16list'],
  ]),
  zdoActiveEpRsp: areq(ZDO, 0x85, [['srcAddr', 'u16'], status, ['nwkAddr', 'u16'], ['endpoints', 'u8list']]),
  zdoBindRsp: areq(ZDO, 0xa1, [['srcAddr', 'u16'], status]),
  zdoMgmtLeaveRsp: areq(ZDO, 0xb4, [['srcAddr', 'u16'], status]),
  zdoStateChangeInd: areq(ZDO, 0xc0, [['state', 'u8']]),
  zdoEndDeviceAnnceInd: areq(ZDO, 0xc1, [
    ['srcAddr', 'u16'],
    ['nwkAddr', 'u16'],
    ['ieee', 'ieee'],
    ['capabilities', 'u8'],
  ]),
  zdoLeaveInd: areq(ZDO, 0xc9, [
    ['srcAddr', 'u16'],
    ['ieee', 'ieee'],
    ['request', 'u8'],
    ['remove', 'u8'],
    ['rejoin', 'u8'],
  ]),
  zdoTcDevInd: areq(ZDO, 0xca, [
    ['nwkAddr', 'u16'],
    ['ieee', 'ieee'],
    ['parentAddr', 'u16'],
  ]),
  zdoPermitJoinInd: areq(ZDO, 0xcb, [['duration', 'u8']]),
  // APP_CNF: Base Device Behaviour commissioning (Z-Stack 3)
  /** Format 1: the install code with its CRC; format 2: the key already derived from it (16 bytes). */
  appCnfBdbAddInstallCode: sreq(APP_CNF, 0x04, [
    ['installCodeFormat', 'u8'],
    ['ieee', 'ieee'],
    ['installCode', 'rest'],
  ]),
  appCnfBdbStartCommissioning: sreq(APP_CNF, 0x05, [['mode', 'u8']]),
  appCnfBdbSetChannel: sreq(APP_CNF, 0x08, [
    ['isPrimary', 'u8'],
    ['channelMask', 'u32'],
  ]),
  appCnfBdbCommissioningNotification: areq(APP_CNF, 0x80, [status, ['mode', 'u8'], ['remainingModes', 'u8']]),
} as const satisfies Record<string, Command>;

export type MtName = keyof typeof MT;

/** Z-Stack device states (`UTIL_GET_DEVICE_INFO`, `ZDO_STATE_CHANGE_IND`); 9 is a started coordinator. */
export const DEVICE_STATE_COORDINATOR = 9;

/** Z-Stack NV items the commissioning writes and the backup reads. */
export const NV = {
  STARTUP_OPTION: 0x0003,
  EXTPANID: 0x002d,
  PRECFGKEY: 0x0062,
  PRECFGKEYS_ENABLE: 0x0063,
  PANID: 0x0083,
  CHANLIST: 0x0084,
  LOGICAL_TYPE: 0x0087,
} as const;

export const BDB_MODE_FORMATION = 0x04;
/** `APP_CNF_BDB_ADD_INSTALLCODE` format: the derived link key rather than the code itself. */
export const INSTALL_CODE_FORMAT_KEY = 0x02;

const key = (type: number, subsystem: number, id: number) => (type << 13) | (subsystem << 8) | id;
const byKey = new Map<number, MtName>();
for (const [name, c] of Object.entries(MT) as [MtName, Command][]) {
  byKey.set(key(c.type, c.subsystem, c.id), name);
}

/** An MT frame of a request (SREQ/AREQ) or of an SRSP answering `name`. */
export function mtFrame(name: MtName, values: Fields = {}, answer = false): Frame {
  const c: Command = MT[name];
  const fields = answer ? (c.rsp ?? []) : c.req;
  return {
    type: answer ? FrameType.SRSP : c.type,
    subsystem: c.subsystem,
    command: c.id,
    data: encodeFields(fields, values),
  };
}

export interface MtMessage {
  name: MtName;
  type: number;
  fields: Fields;
}

/** Names and decodes a frame; null for a command the driver does not speak. Throws on a short payload. */
export function decodeMt(frame: Frame): MtMessage | null {
  const asType = frame.type === FrameType.SRSP ? FrameType.SREQ : frame.type;
  const name = byKey.get(key(asType, frame.subsystem, frame.command));
  if (!name) return null;
  const c: Command = MT[name];
  const fields = frame.type === FrameType.SRSP ? (c.rsp ?? []) : c.req;
  return { name, type: frame.type, fields: decodeFields(fields, frame.data) };
}

/** AF_DATA_CONFIRM and ZDO status codes that recovery acts on (docs/zigbee.md#sending-and-recovery). */
export const AfStatus = {
  SUCCESS: 0x00,
  BUFFER_FULL: 0x11,
  APS_NO_ACK: 0xb7,
  NWK_NO_ROUTE: 0xcd,
  MAC_CHANNEL_ACCESS_FAILURE: 0xe1,
  MAC_NO_ACK: 0xe9,
  MAC_TRANSACTION_EXPIRED: 0xf0,
} as const;
