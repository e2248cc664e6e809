/**
 * The simulated Zigbee network: a colour bulb, a dimmable bulb, a plug, a four-button remote and a motion
 * sensor, each with its endpoints, clusters and attributes, answering ZCL the way such devices do.
 */
import {
  Attr,
  Cluster,
  ColorCmd,
  Global,
  GroupsCmd,
  HA_PROFILE,
  IasZoneCmd,
  LevelCmd,
  OnOffCmd,
  ZclStatus,
} from '../../../drivers/zigbee/zcl/clusters.ts';
import {
  decodeConfigureReporting,
  decodeRead,
  decodeWrite,
  encodeReadRsp,
  encodeReport,
} from '../../../drivers/zigbee/zcl/foundation.ts';
import { decodeZcl, encodeZcl, type ZclFrame } from '../../../drivers/zigbee/zcl/frame.ts';
import { type AttrValue, DataType } from '../../../drivers/zigbee/zcl/types.ts';

import type { VendorDeviceName } from './vendor-devices/names.ts';

/** Colour Control commands that set a colour (ZCL r7 §5.2.2.3): move to hue, saturation, both, xy; enhanced hue. */
const COLOUR_COMMANDS = new Set([0x00, 0x03, 0x06, ColorCmd.MOVE_TO_XY, 0x40, 0x43]);

export type SimDeviceName =
  | VendorDeviceName
  | 'colourBulb'
  | 'dimmableBulb'
  | 'plug'
  | 'remote'
  | 'motion'
  | 'contact'
  | 'iasMotion'
  | 'hueDimmer';

export interface SimEndpoint {
  id: number;
  deviceId: number;
  inClusters: number[];
  outClusters: number[];
}

interface AttrCell {
  type: number;
  value: AttrValue;
}

/** What a device sends into the air: the coordinator turns it into AF_INCOMING_MSG. */
export interface Outgoing {
  cluster: number;
  srcEndpoint: number;
  zcl: Buffer;
}

/** Whether a trust centre holding `keys` (by IEEE) lets `d` join: only with its install-code key, if it has one. */
export function trustCentreAdmits(d: SimDevice, keys: ReadonlyMap<string, Buffer>): boolean {
  if (!d.installCodeKey) return true;
  const held = keys.get(d.ieee.toLowerCase());
  return held?.equals(d.installCodeKey) === true;
}

/** A key the trust centre holds for a device, with the last APS frame counter it took from it. */
export interface HeldKey {
  key: Buffer;
  rxCounter: number;
}

/**
 * Whether the coordinator can read a frame from `d`: frames under a unique link key decrypt only with the
 * same key, and only with a counter above the last one taken (APS replay protection). The held counter
 * moves on with each frame taken.
 */
export function apsAccepts(d: SimDevice, held: HeldKey | undefined): boolean {
  if (!d.linkKey) return true;
  d.apsCounter = (d.apsCounter + 1) >>> 0;
  if (!held?.key.equals(d.linkKey) || d.apsCounter <= held.rxCounter) return false;
  held.rxCounter = d.apsCounter;
  return true;
}

export class SimDevice {
  nwk: number;
  joined = false;
  /**
   * The link key derived from the device's install code, when it was made to join with one: the trust
   * centre must hold the same key for its IEEE address, or the device cannot join.
   */
  installCodeKey: Buffer | null = null;
  /** Clusters bound to the coordinator (a remote sends its buttons there). */
  readonly binds = new Set<number>();
  /** Per bound cluster, the IEEE address it was bound to: the device sends there, nowhere else. */
  readonly bindTargets = new Map<number, string>();
  /**
   * A unique APS link key the device shares with the trust centre and encrypts its frames with: the
   * coordinator takes them only while its key table holds this key for the device's IEEE address.
   */
  linkKey: Buffer | null = null;
  /** The device's outgoing APS frame counter (for frames under `linkKey`). */
  apsCounter = 0;
  /**
   * IAS zone enrolment: `trip` asks for enrolment once its CIE address is written (trip-to-pair), `auto`
   * waits for an enroll response sent unasked (auto-enroll-response).
   */
  iasMode: 'trip' | 'auto' | null = null;
  /** Zigbee groups the device is a member of (Groups cluster). */
  readonly groups = new Set<number>();
  /** `cluster:attr` keys with reporting configured. */
  readonly reporting = new Set<string>();
  readonly attrs = new Map<number, Map<number, AttrCell>>();
  /** Every ZCL command the device received, newest last. */
  readonly received: Array<{ cluster: number; frame: ZclFrame; at: bigint }> = [];
  #tsn = 0;

  /**
   * The colour commands the device received, oldest first: Move to Colour Temperature is `ct`; Move to
   * Colour (xy), hue and saturation are `xy`.
   */
  get colourCommands(): Array<'ct' | 'xy'> {
    return this.received.flatMap(({ cluster, frame }) => {
      if (cluster !== Cluster.COLOR || frame.kind !== 1) return [];
      if (frame.command === ColorCmd.MOVE_TO_COLOR_TEMP) return ['ct' as const];
      return COLOUR_COMMANDS.has(frame.command) ? ['xy' as const] : [];
    });
  }

  constructor(
    readonly name: SimDeviceName,
    readonly ieee: string,
    nwk: number,
    readonly logicalType: 1 | 2,
    readonly manufacturer: string,
    readonly model: string,
    readonly endpoints: SimEndpoint[],
  ) {
    this.nwk = nwk;
    this.#set(Cluster.BASIC, Attr.BASIC_MANUFACTURER, DataType.CHAR_STR, manufacturer);
    this.#set(Cluster.BASIC, Attr.BASIC_MODEL, DataType.CHAR_STR, model);
  }

  #set(cluster: number, attr: number, type: number, value: AttrValue): void {
    let m = this.attrs.get(cluster);
    if (!m) {
      m = new Map();
      this.attrs.set(cluster, m);
    }
    m.set(attr, { type, value });
  }

  /** A ZDO bind of `cluster` to `dstIeee` (the coordinator that asked). */
  bind(cluster: number, dstIeee: string): void {
    this.binds.add(cluster);
    this.bindTargets.set(cluster, dstIeee.toLowerCase());
  }

  unbindAll(): void {
    this.binds.clear();
    this.bindTargets.clear();
  }

  /** Whether a report of `cluster` goes to the coordinator with this IEEE address (its binding, if any, says). */
  reportsTo(cluster: number, coordinatorIeee: string): boolean {
    const target = this.bindTargets.get(cluster);
    return target === undefined || target === coordinatorIeee.toLowerCase();
  }

  attr(cluster: number, attr: number): AttrValue | undefined {
    return this.attrs.get(cluster)?.get(attr)?.value;
  }

  define(cluster: number, attr: number, type: number, value: AttrValue): this {
    this.#set(cluster, attr, type, value);
    return this;
  }

  #frame(kind: 0 | 1, command: number, payload: Buffer, fromServer = true): Buffer {
    this.#tsn = (this.#tsn + 1) & 0xff;
    return encodeZcl({ kind, fromServer, disableDefaultResponse: true, tsn: this.#tsn, command, payload });
  }

  /** Handles a frame sent to one of its endpoints; returns what it answers and the reports it owes. */
  receive(endpoint: number, cluster: number, data: Buffer): { replies: Outgoing[]; reports: Outgoing[] } {
    const replies: Outgoing[] = [];
    const frame = decodeZcl(data);
    this.received.push({ cluster, frame, at: process.hrtime.bigint() });
    const changed: number[] = [];
    if (frame.kind === 0) {
      if (frame.command === Global.READ) {
        const records = decodeRead(frame.payload).map((attr) => {
          const cell = this.attrs.get(cluster)?.get(attr);
          return cell ? { attr, type: cell.type, value: cell.value } : { attr, status: 0x86 };
        });
        replies.push({
          cluster,
          srcEndpoint: endpoint,
          zcl: this.#reply(frame, Global.READ_RSP, encodeReadRsp(records)),
        });
      } else if (frame.command === Global.WRITE) {
        for (const r of decodeWrite(frame.payload)) this.#set(cluster, r.attr, r.type, r.value);
        replies.push({
          cluster,
          srcEndpoint: endpoint,
          zcl: this.#reply(frame, Global.WRITE_RSP, Buffer.of(0)),
        });
        if (cluster === Cluster.IAS_ZONE && this.iasMode === 'trip') {
          const p = Buffer.alloc(4);
          p.writeUInt16LE(Number(this.attr(Cluster.IAS_ZONE, Attr.IAS_ZONE_TYPE) ?? 0), 0);
          p.writeUInt16LE(0x1234, 2);
          replies.push({ cluster, srcEndpoint: endpoint, zcl: this.#frame(1, IasZoneCmd.ENROLL_REQUEST, p) });
        }
      } else if (frame.command === Global.CONFIGURE_REPORTING) {
        for (const c of decodeConfigureReporting(frame.payload)) this.reporting.add(`${cluster}:${c.attr}`);
        replies.push({
          cluster,
          srcEndpoint: endpoint,
          zcl: this.#reply(frame, Global.CONFIGURE_REPORTING_RSP, Buffer.of(0)),
        });
      }
    } else if (cluster === Cluster.IAS_ZONE) {
      // An enroll response: enrolled only once the CIE address is known.
      if (
        frame.command === IasZoneCmd.ENROLL_RESPONSE &&
        frame.payload[0] === 0 &&
        this.attr(Cluster.IAS_ZONE, Attr.IAS_CIE_ADDRESS) !== undefined
      ) {
        this.#set(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATE, DataType.ENUM8, 1);
        this.#set(Cluster.IAS_ZONE, Attr.IAS_ZONE_ID, DataType.UINT8, frame.payload[1] ?? 0);
      }
    } else if (cluster === Cluster.GROUPS) {
      const reply = this.#groups(frame);
      if (reply) replies.push({ cluster, srcEndpoint: endpoint, zcl: reply });
    } else {
      changed.push(...this.#command(cluster, frame));
    }
    const reports = changed.length
      ? [{ cluster, srcEndpoint: endpoint, zcl: this.report(cluster, changed, true) }].filter(
          (r) => r.zcl.length > 0,
        )
      : [];
    // A level change with on/off also changes onOff.
    if (cluster === Cluster.LEVEL && changed.length && this.reporting.has(`${Cluster.ON_OFF}:0`)) {
      reports.push({
        cluster: Cluster.ON_OFF,
        srcEndpoint: endpoint,
        zcl: this.report(Cluster.ON_OFF, [Attr.ON_OFF], true),
      });
    }
    return { replies, reports: reports.filter((r) => r.zcl.length > 0) };
  }

  /** Add group / remove group, answered with the status and the group id. */
  #groups(f: ZclFrame): Buffer | null {
    if (!this.endpoints.some((e) => e.inClusters.includes(Cluster.GROUPS)) || f.payload.length < 2)
      return null;
    const id = f.payload.readUInt16LE(0);
    let status = 0;
    if (f.command === GroupsCmd.ADD) {
      if (this.groups.has(id)) status = ZclStatus.DUPLICATE_EXISTS;
      this.groups.add(id);
    } else if (f.command === GroupsCmd.REMOVE) {
      if (!this.groups.delete(id)) status = ZclStatus.NOT_FOUND;
    } else return null;
    const payload = Buffer.alloc(3);
    payload[0] = status;
    payload.writeUInt16LE(id, 1);
    return encodeZcl({
      kind: 1,
      fromServer: true,
      disableDefaultResponse: true,
      tsn: f.tsn,
      command: f.command,
      payload,
    });
  }

  #reply(req: ZclFrame, command: number, payload: Buffer): Buffer {
    return encodeZcl({
      kind: 0,
      fromServer: true,
      disableDefaultResponse: true,
      tsn: req.tsn,
      command,
      payload,
    });
  }

  /** An attribute report of `attrs` (only configured ones unless `onlyConfigured` is false). */
  report(cluster: number, attrs: number[], onlyConfigured = false): Buffer {
    const records = attrs
      .filter((a) => !onlyConfigured || this.reporting.has(`${cluster}:${a}`))
      .flatMap((attr) => {
        const cell = this.attrs.get(cluster)?.get(attr);
        return cell ? [{ attr, type: cell.type, value: cell.value }] : [];
      });
    return records.length ? this.#frame(0, Global.REPORT, encodeReport(records)) : Buffer.alloc(0);
  }

  #command(cluster: number, f: ZclFrame): number[] {
    const p = f.payload;
    if (cluster === Cluster.ON_OFF && this.attrs.has(Cluster.ON_OFF)) {
      const now = this.attr(Cluster.ON_OFF, Attr.ON_OFF) === true;
      const next = f.command === OnOffCmd.ON ? true : f.command === OnOffCmd.OFF ? false : !now;
      this.#set(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, next);
      return [Attr.ON_OFF];
    }
    if (cluster === Cluster.LEVEL && this.attrs.has(Cluster.LEVEL) && p.length >= 1) {
      if (f.command === LevelCmd.MOVE_TO_LEVEL || f.command === LevelCmd.MOVE_TO_LEVEL_ON_OFF) {
        this.#set(Cluster.LEVEL, Attr.LEVEL_CURRENT, DataType.UINT8, p[0] as number);
        if (f.command === LevelCmd.MOVE_TO_LEVEL_ON_OFF)
          this.#set(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, true);
        return [Attr.LEVEL_CURRENT];
      }
    }
    if (cluster === Cluster.COLOR && this.attrs.has(Cluster.COLOR)) {
      if (f.command === ColorCmd.MOVE_TO_COLOR_TEMP && p.length >= 2) {
        this.#set(Cluster.COLOR, Attr.COLOR_TEMP, DataType.UINT16, p.readUInt16LE(0));
        this.#set(Cluster.COLOR, Attr.COLOR_MODE, DataType.ENUM8, 2);
        return [Attr.COLOR_TEMP, Attr.COLOR_MODE];
      }
      if (f.command === ColorCmd.MOVE_TO_XY && p.length >= 4) {
        this.#set(Cluster.COLOR, Attr.COLOR_X, DataType.UINT16, p.readUInt16LE(0));
        this.#set(Cluster.COLOR, Attr.COLOR_Y, DataType.UINT16, p.readUInt16LE(2));
        this.#set(Cluster.COLOR, Attr.COLOR_MODE, DataType.ENUM8, 1);
        return [Attr.COLOR_X, Attr.COLOR_Y, Attr.COLOR_MODE];
      }
    }
    return [];
  }

  /** A cluster command the device sends on its own (a remote's button): client → server. */
  command(cluster: number, command: number, payload: Buffer = Buffer.alloc(0)): Outgoing {
    const ep = this.endpoints.find((e) => e.outClusters.includes(cluster)) ?? this.endpoints[0];
    return { cluster, srcEndpoint: ep?.id ?? 1, zcl: this.#frame(1, command, payload, false) };
  }

  /**
   * A zone status change notification (Alarm1 bit 0, Tamper bit 2), or null while the device is not
   * enrolled: an IAS device stays silent until a CIE enrolled it.
   */
  zone(alarm: boolean, tamper = false): Outgoing | null {
    if (this.attr(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATE) !== 1) return null;
    const p = Buffer.alloc(6);
    p.writeUInt16LE((alarm ? 1 : 0) | (tamper ? 4 : 0), 0);
    p[3] = Number(this.attr(Cluster.IAS_ZONE, Attr.IAS_ZONE_ID) ?? 0);
    const ep = this.endpoints.find((e) => e.inClusters.includes(Cluster.IAS_ZONE));
    return {
      cluster: Cluster.IAS_ZONE,
      srcEndpoint: ep?.id ?? 1,
      zcl: this.#frame(1, IasZoneCmd.STATUS_CHANGE, p),
    };
  }

  /** A manufacturer-specific cluster command the device sends on its own (vendor remote buttons). */
  vendorCommand(
    cluster: number,
    command: number,
    payload: Buffer,
    manufacturerCode: number,
    fromServer: boolean,
  ): Outgoing {
    const ep =
      this.endpoints.find((e) => (fromServer ? e.inClusters : e.outClusters).includes(cluster)) ??
      this.endpoints[0];
    this.#tsn = (this.#tsn + 1) & 0xff;
    const zcl = encodeZcl({
      kind: 1,
      fromServer,
      disableDefaultResponse: true,
      manufacturerCode,
      tsn: this.#tsn,
      command,
      payload,
    });
    return { cluster, srcEndpoint: ep?.id ?? 1, zcl };
  }

  /** Sets an attribute as the device itself would (a sensor reading) and returns its report. */
  change(cluster: number, attr: number, type: number, value: AttrValue): Outgoing {
    this.#set(cluster, attr, type, value);
    return { cluster, srcEndpoint: this.endpoints[0]?.id ?? 1, zcl: this.report(cluster, [attr]) };
  }
}

const light = (ep: number, deviceId: number, colour: boolean): SimEndpoint => ({
  id: ep,
  deviceId,
  inClusters: [
    Cluster.BASIC,
    Cluster.IDENTIFY,
    Cluster.GROUPS,
    Cluster.SCENES,
    Cluster.ON_OFF,
    Cluster.LEVEL,
    ...(colour ? [Cluster.COLOR] : []),
  ],
  outClusters: [],
});

/** The five devices, with fixed IEEE addresses so tests can name them. */
export function simulatedNetwork(): Map<SimDeviceName, SimDevice> {
  const colour = new SimDevice(
    'colourBulb',
    '0x0017880100000001',
    0x1a01,
    1,
    'Signify Netherlands B.V.',
    'LCA001',
    [light(11, 0x010d, true)],
  )
    .define(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, false)
    .define(Cluster.LEVEL, Attr.LEVEL_CURRENT, DataType.UINT8, 254)
    .define(Cluster.COLOR, Attr.COLOR_TEMP, DataType.UINT16, 366)
    .define(Cluster.COLOR, Attr.COLOR_X, DataType.UINT16, 0x5000)
    .define(Cluster.COLOR, Attr.COLOR_Y, DataType.UINT16, 0x5000)
    .define(Cluster.COLOR, Attr.COLOR_MODE, DataType.ENUM8, 2)
    .define(Cluster.COLOR, Attr.COLOR_CAPABILITIES, DataType.BITMAP16, 0x19)
    .define(Cluster.COLOR, Attr.COLOR_TEMP_MIN, DataType.UINT16, 153)
    .define(Cluster.COLOR, Attr.COLOR_TEMP_MAX, DataType.UINT16, 500);
  const dimmable = new SimDevice(
    'dimmableBulb',
    '0x000b57fffe000002',
    0x1a02,
    1,
    'IKEA of Sweden',
    'TRADFRI bulb E27 W opal 1000lm',
    [light(1, 0x0101, false)],
  )
    .define(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, false)
    .define(Cluster.LEVEL, Attr.LEVEL_CURRENT, DataType.UINT8, 254);
  const plug = new SimDevice('plug', '0x000d6f0000000003', 0x1a03, 1, 'innr', 'SP 120', [
    {
      id: 1,
      deviceId: 0x010a,
      inClusters: [Cluster.BASIC, Cluster.GROUPS, Cluster.SCENES, Cluster.ON_OFF],
      outClusters: [],
    },
  ]).define(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, false);
  const remote = new SimDevice(
    'remote',
    '0x000b57fffe000004',
    0x1a04,
    2,
    'IKEA of Sweden',
    'TRADFRI remote control',
    [
      {
        id: 1,
        deviceId: 0x0820,
        inClusters: [Cluster.BASIC],
        outClusters: [Cluster.ON_OFF, Cluster.LEVEL, Cluster.SCENES],
      },
    ],
  );
  const motion = new SimDevice(
    'motion',
    '0x0017880100000005',
    0x1a05,
    2,
    'Signify Netherlands B.V.',
    'SML001',
    [{ id: 2, deviceId: 0x0107, inClusters: [Cluster.BASIC, Cluster.OCCUPANCY], outClusters: [] }],
  ).define(Cluster.OCCUPANCY, Attr.OCCUPANCY, DataType.BITMAP8, 0);
  const ias = (
    name: SimDeviceName,
    ieee: string,
    nwk: number,
    manufacturer: string,
    model: string,
    zoneType: number,
    mode: 'trip' | 'auto',
  ) => {
    const d = new SimDevice(name, ieee, nwk, 2, manufacturer, model, [
      { id: 1, deviceId: 0x0402, inClusters: [Cluster.BASIC, Cluster.IAS_ZONE], outClusters: [] },
    ])
      .define(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATE, DataType.ENUM8, 0)
      .define(Cluster.IAS_ZONE, Attr.IAS_ZONE_TYPE, DataType.ENUM16, zoneType)
      .define(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATUS, DataType.BITMAP16, 0);
    d.iasMode = mode;
    return d;
  };
  // A door contact that asks to be enrolled, and a motion sensor that waits for an enroll response.
  const contact = ias('contact', '0x00124b0000000006', 0x1a06, 'eWeLink', 'DS01', 0x0015, 'trip');
  const iasMotion = ias('iasMotion', '0x00124b0000000007', 0x1a07, 'eWeLink', 'MS01', 0x000d, 'auto');
  // A Hue dimmer switch in Zigbee mode: standard commands from endpoint 1, every button event on 0xFC00.
  const hueDimmer = new SimDevice(
    'hueDimmer',
    '0x0017880100000008',
    0x1a08,
    2,
    'Signify Netherlands B.V.',
    'RWL021',
    [
      {
        id: 1,
        deviceId: 0x0830,
        inClusters: [Cluster.BASIC],
        outClusters: [
          Cluster.BASIC,
          Cluster.IDENTIFY,
          Cluster.GROUPS,
          Cluster.ON_OFF,
          Cluster.LEVEL,
          Cluster.SCENES,
        ],
      },
      {
        id: 2,
        deviceId: 0x000c,
        inClusters: [Cluster.BASIC, 0x0001, Cluster.IDENTIFY, 0x000f, 0xfc00],
        outClusters: [0x0019],
      },
    ],
  );
  return new Map<SimDeviceName, SimDevice>([
    ['colourBulb', colour],
    ['dimmableBulb', dimmable],
    ['plug', plug],
    ['remote', remote],
    ['motion', motion],
    ['contact', contact],
    ['iasMotion', iasMotion],
    ['hueDimmer', hueDimmer],
  ]);
}

export { HA_PROFILE };
