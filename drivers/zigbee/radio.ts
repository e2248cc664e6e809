/**
 * What the Zigbee driver needs from a coordinator stick, whatever its firmware: Texas Instruments
 * Z-Stack (ZNP, `znp/`) or Silicon Labs EmberZNet (EZSP over ASH, `ezsp/`). The ZCL, interview, reports,
 * groups and lighting layers only see this (docs/zigbee.md#radio-adapters).
 */
import type { NetworkParams } from './znp/network.ts';
import type { StickSecurity } from './znp/nv-backup.ts';

export type StickKind = 'znp' | 'ezsp';

export interface Destination {
  ieee: string;
  nwk: number;
  endpoint: number;
}

export interface StartResult {
  /** The coordinator's own IEEE address (`0x` and 16 hex digits). */
  ieee: string;
  network: NetworkParams;
  /** True when the stick was commissioned now (a blank stick, or a replacement given a backup). */
  commissioned: boolean;
  /** Firmware version as the stick reports it. */
  version: string;
  /** Set when a backup was restored onto the stick: what of the old coordinator's identity it took. */
  restore?: RestoreOutcome;
}

/**
 * What a restore carried onto the stick beyond the network (docs/zigbee.md#the-coordinators-ieee-address).
 * `reason` says, for the operator, why something could not be carried and what that means.
 */
export interface RestoreOutcome {
  /**
   * The backup's coordinator IEEE address: taken by the stick, or not; `via` where it was written
   * (`already`: the stick had it), `note` what that means for a later migration.
   */
  ieee?: { wanted: string; taken: boolean; via?: IeeeWay; reason?: string; note?: string };
  /** The backup's unique device link keys written to the stick. */
  linkKeys?: { written: number; of: number; reason?: string };
  /**
   * The backup's EmberZNet hashed trust-centre link key (the root devices' keys derive from): formed with,
   * or not (docs/zigbee.md#the-hashed-trust-centre-link-key).
   */
  hashedTclk?: { applied: boolean; reason?: string };
}

/** Where a restored coordinator IEEE address is kept (docs/zigbee.md#the-coordinators-ieee-address). */
export type IeeeWay = 'already' | 'extaddr-nv-item' | 'restored-eui64-token' | 'custom-eui64-token';

/** What the driver hears from inside a start. */
export interface StartHooks {
  /**
   * A restore wrote the old coordinator's identity onto the stick: called before the reset that makes the
   * stick take it, so the outcome is kept even if the stick does not come back from that reset.
   */
  restoreWritten?(outcome: RestoreOutcome): Promise<void>;
}

/** One endpoint of a device as its simple descriptor describes it. */
export interface SimpleDescriptor {
  endpoint: number;
  profileId: number;
  deviceId: number;
  inClusters: number[];
  outClusters: number[];
}

/** A frame from a device (an APS data frame on a non-ZDO profile). */
export interface IncomingFrame {
  nwk: number;
  srcEndpoint: number;
  cluster: number;
  data: Buffer;
  /** The group it was sent to, 0 for a unicast. */
  groupId: number;
  linkQuality: number;
}

/** What the stick tells without being asked. */
export type RadioEvent =
  /** The stick restarted by itself: the driver calls `resume()`. */
  | { type: 'reset'; reason: number }
  /** A device joined or rejoined, or took a new network address. */
  | { type: 'announce'; ieee: string; nwk: number }
  | { type: 'left'; ieee: string }
  | ({ type: 'message' } & IncomingFrame);

export interface RadioStats {
  sent: number;
  groupcasts: number;
  retries: number;
  routeDiscoveries: number;
  failed: number;
}

/** The ZDO requests the interview and device removal make; each resolves with the device's answer. */
export interface ZdoRequests {
  nodeDescriptor(nwk: number): Promise<{ logicalType: number; manufacturerCode: number }>;
  activeEndpoints(nwk: number): Promise<number[]>;
  simpleDescriptor(nwk: number, endpoint: number): Promise<SimpleDescriptor>;
  /** Binds `cluster` of the device's `srcEndpoint` to the coordinator's endpoint `dstEndpoint`. */
  bind(
    nwk: number,
    b: { srcIeee: string; srcEndpoint: number; cluster: number; dstIeee: string; dstEndpoint: number },
  ): Promise<void>;
  /** Mgmt_Leave_req (rejoin not allowed); resolves when the device confirmed. */
  leave(nwk: number, ieee: string, timeoutMs?: number): Promise<void>;
}

export interface RadioAdapter extends ZdoRequests {
  readonly kind: StickKind;
  /** Where each device is reachable now (re-resolved after a route failure). */
  readonly addresses: Map<string, number>;
  readonly stats: RadioStats;
  /** How long to wait for a device's own answer (a delivery confirm, a leave response). */
  readonly answerMs: number;
  /** Brings the stick up on `network` (resume or restore), or commissions `create()` when it is null. */
  start(
    network: NetworkParams | null,
    create: () => NetworkParams,
    path?: string,
    hooks?: StartHooks,
  ): Promise<StartResult>;
  /** After the stick reset itself: its network up again and Hearth's endpoint registered again. */
  resume(): Promise<void>;
  /** A cheap request the stick must answer (the driver's liveness check); rejects when it does not. */
  alive(timeoutMs: number): Promise<void>;
  permitJoin(seconds: number): Promise<void>;
  /**
   * Gives the trust centre the link key derived from a device's install code, for that device only
   * (docs/zigbee.md#install-codes); the device can then join while joining is open.
   */
  addInstallCodeKey(ieee: string, key: Buffer): Promise<void>;
  nwkOf(d: Destination): number;
  /** One unicast frame, confirmed by the device (APS ack), with the retries of docs/zigbee.md. */
  send(d: Destination, cluster: number, data: Buffer): Promise<void>;
  /** One frame to every member of a Zigbee group (nobody acknowledges it). */
  sendGroup(group: number, cluster: number, data: Buffer): Promise<void>;
  /** One frame to every device (0xFFFF), or to the routers only (0xFFFC), at `endpoint`. */
  sendBroadcast(address: number, endpoint: number, cluster: number, data: Buffer): Promise<void>;
  /** The stick's security state for a backup; null when the stick does not expose it. */
  readSecurity(extendedPanId: string): Promise<StickSecurity | null>;
  onEvent(listener: (e: RadioEvent) => void): void;
  close(): Promise<void>;
}

/** The endpoint Hearth registers on the coordinator (Home Automation profile). */
export const HEARTH_ENDPOINT = 1;
export const HA_PROFILE = 0x0104;
/** What Hearth's endpoint serves and sends (a configuration tool, device id 0x0005). */
export const HEARTH_IN_CLUSTERS = [0x0000, 0x0006, 0x0008, 0x0300, 0x0406, 0x0500];
export const HEARTH_OUT_CLUSTERS = [0x0000, 0x0006, 0x0008, 0x0300];

export class DeliveryError extends Error {
  constructor(readonly status: number) {
    super(`the device did not take the frame (status 0x${status.toString(16)})`);
    this.name = 'DeliveryError';
  }
}
