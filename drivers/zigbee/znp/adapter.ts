/**
 * The Z-Stack adapter: brings a stick up (ping with the bootloader-skip fallback, device info, commissioning
 * a blank stick or resuming its network), carries ZDO requests and AF frames with confirm-matching and
 * recovery, and notices a vanished stick with a liveness ping (docs/zigbee.md).
 */
import {
  DeliveryError,
  type Destination,
  HA_PROFILE,
  HEARTH_ENDPOINT,
  HEARTH_IN_CLUSTERS,
  HEARTH_OUT_CLUSTERS,
  type RadioAdapter,
  type RadioEvent,
  type RestoreOutcome,
  type SimpleDescriptor,
  type StartHooks,
  type StartResult,
} from '../radio.ts';
import type { Fields } from './codec.ts';
import { writeExtAddr, writeLinkKeys } from './identity.ts';
import {
  AfStatus,
  BDB_MODE_FORMATION,
  DEVICE_STATE_COORDINATOR,
  INSTALL_CODE_FORMAT_KEY,
  type MtMessage,
  type MtName,
  NV,
} from './mt.ts';
import { channelMask, type NetworkParams } from './network.ts';
import {
  readFrameCounter,
  readSecurity,
  type StickSecurity,
  writeSecurity,
  ZStackProduct,
} from './nv-backup.ts';
import type { Transport } from './transport.ts';
import { Znp, ZnpTimeoutError } from './znp.ts';

export interface AdapterTimings {
  pingMs: number;
  /** How long a stick takes to leave its bootloader after the skip byte. */
  bootloaderMs: number;
  startupMs: number;
  /** Wait before retrying after a channel-access failure or a full buffer. */
  retryBackoffMs: number;
  /** Wait after a route discovery before the retry. */
  routeDiscoveryMs: number;
  confirmMs: number;
}

export const DEFAULT_TIMINGS: AdapterTimings = {
  pingMs: 250,
  bootloaderMs: 1000,
  startupMs: 40_000,
  retryBackoffMs: 2000,
  routeDiscoveryMs: 1000,
  confirmMs: 10_000,
};

export { DeliveryError, type Destination, HEARTH_ENDPOINT, type StartResult };

const AF_OPTIONS = 0x10 | 0x20; // ACK_REQUEST | DISCV_ROUTE
const RADIUS = 30;
const ATTEMPTS = 4;
/** AF_DATA_REQUEST_EXT address mode for a group (the address is the 16-bit group id). */
const ADDR_MODE_GROUP = 0x01;

/** A confirm that never came: the frame is treated as expired at the MAC layer (retried or reported). */
const expiredOnTimeout = (err: unknown): number => {
  if (err instanceof ZnpTimeoutError) return AfStatus.MAC_TRANSACTION_EXPIRED;
  throw err;
};

export class StickNotFoundError extends Error {
  constructor(path: string) {
    super(`no Z-Stack coordinator answers on ${path}`);
    this.name = 'StickNotFoundError';
  }
}

/** On the global timer (not timers/promises) so fake timers drive it in tests. */
/**
 * A backup's EmberZNet hashed trust-centre link key on a Z-Stack stick: Z-Stack derives keys from a seed
 * of its own, so the root has no place here (docs/zigbee.md#the-hashed-trust-centre-link-key).
 */
const ROOT_NOT_USED: NonNullable<RestoreOutcome['hashedTclk']> = {
  applied: false,
  reason:
    "Z-Stack cannot use EmberZNet's hashed trust-centre link key; devices whose key the old stick derived from it (no key of their own in the backup) have to join again",
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const hex = (n: number, len: number) => Buffer.from(n.toString(16).padStart(len * 2, '0'), 'hex').reverse();

export class ZStackAdapter implements RadioAdapter {
  readonly kind = 'znp' as const;
  readonly znp: Znp;
  readonly #t: AdapterTimings;
  readonly #transport: Transport;
  #transId = 0;
  /** Where each device is reachable now (re-resolved after a route failure). */
  readonly addresses = new Map<string, number>();
  /** Counters for diagnostics and the admin status. */
  /** SYS_VERSION product: 0 Z-Stack 1.2, 1 Z-Stack 3.x.0, 2 Z-Stack 3.0.x. */
  product = -1;
  readonly stats = { sent: 0, groupcasts: 0, retries: 0, routeDiscoveries: 0, failed: 0 };

  constructor(transport: Transport, timings: Partial<AdapterTimings> = {}) {
    this.#transport = transport;
    this.#t = { ...DEFAULT_TIMINGS, ...timings };
    this.znp = new Znp(transport);
  }

  /** SYS_PING with the fallbacks of docs/zigbee.md#start-up. */
  async ping(path = 'the serial port'): Promise<void> {
    const once = () =>
      this.znp.request('sysPing', {}, this.#t.pingMs).then(
        () => true,
        () => false,
      );
    if (await once()) return;
    await this.#transport.write(Buffer.of(0xef)); // skip the serial bootloader
    await sleep(this.#t.bootloaderMs);
    if (await once()) return;
    await this.#transport.pulseModemLines?.().catch(() => {});
    await sleep(this.#t.bootloaderMs);
    if (await once()) return;
    throw new StickNotFoundError(path);
  }

  /** Brings the stick up on `network` (resume or restore), or commissions a new one when it is null. */
  async start(
    network: NetworkParams | null,
    create: () => NetworkParams,
    path?: string,
    hooks: StartHooks = {},
  ): Promise<StartResult> {
    await this.ping(path);
    const v = await this.znp.call('sysVersion');
    const version = `${v.major}.${v.minor}.${v.maint}`;
    this.product = v.product as number;
    let commissioned = false;
    let outcome: RestoreOutcome | undefined;
    const { security, ...plain } = network ?? create();
    const params: NetworkParams = plain;
    if (!network || !(await this.#carries(params))) {
      await this.#commission(params);
      commissioned = true;
      // A replacement for a known network: the stick's security state (or at least a frame counter above
      // the old stick's), then a reset so Z-Stack takes it (docs/zigbee.md#backup-and-restore).
      // Another family's backup (Z-Stack 3.0.x, EZSP) brings only its frame counter across.
      const counter = security?.frameCounter ?? params.frameCounter;
      const restore =
        security?.zstack === '3.x.0'
          ? security
          : counter !== undefined
            ? { zstack: '3.x.0', frameCounter: counter }
            : null;
      if (network && restore && this.product === ZStackProduct.Z3X0) {
        await writeSecurity(this.znp, restore, params.extendedPanId, params.networkKey);
        if (security) outcome = await this.#writeIdentity(security);
        if (security?.hashedTclk) outcome = { ...outcome, hashedTclk: ROOT_NOT_USED };
        if (outcome) await hooks.restoreWritten?.(outcome);
        await this.#reset();
        await this.#startup();
      } else if (network && security && (security.coordinatorIeee || security.linkKeys)) {
        outcome = this.#cannotRestoreIdentity(security);
      }
      if (network && security?.hashedTclk) outcome = { ...outcome, hashedTclk: ROOT_NOT_USED };
    } else if ((await this.#deviceInfo()).deviceState !== DEVICE_STATE_COORDINATOR) {
      await this.#startup();
    }
    const info = await this.#deviceInfo();
    await this.registerEndpoint();
    const frameCounter = await readFrameCounter(this.znp, this.product, params.extendedPanId).catch(
      () => undefined,
    );
    if (frameCounter !== undefined) params.frameCounter = frameCounter;
    if (outcome?.ieee && !outcome.ieee.reason) {
      outcome.ieee.taken = outcome.ieee.wanted === info.ieee;
      if (!outcome.ieee.taken)
        outcome.ieee.reason =
          'the stick kept its own IEEE address after the reset; devices bound to the old coordinator report nothing until they are paired again';
    }
    return {
      ieee: info.ieee as string,
      network: params,
      commissioned,
      version,
      ...(outcome ? { restore: outcome } : {}),
    };
  }

  /**
   * The old coordinator's IEEE address into `EXTADDR` and the devices' unique link keys into the key
   * tables (docs/zigbee.md#the-coordinators-ieee-address); the reset that follows makes Z-Stack take both.
   */
  async #writeIdentity(security: StickSecurity): Promise<RestoreOutcome> {
    const out: RestoreOutcome = {};
    const wanted = security.coordinatorIeee;
    if (wanted) {
      const already = wanted === (await this.#deviceInfo()).ieee;
      if (!already) await writeExtAddr(this.znp, wanted);
      out.ieee = { wanted, taken: false, via: already ? 'already' : 'extaddr-nv-item' };
    }
    const keys = security.linkKeys ?? [];
    if (keys.length) {
      const seed = security.tclkSeed ? Buffer.from(security.tclkSeed, 'hex') : null;
      const written = await writeLinkKeys(this.znp, keys, seed, (ieee) => this.addresses.get(ieee) ?? 0xfffe);
      out.linkKeys = { written, of: keys.length };
    }
    return out;
  }

  /** Z-Stack 3.0.x and older: the network only; what that leaves out, in words. */
  #cannotRestoreIdentity(security: StickSecurity): RestoreOutcome {
    const why = 'this Z-Stack (not 3.x.0) keeps its tables in a layout Hearth does not write';
    const out: RestoreOutcome = {};
    if (security.coordinatorIeee)
      out.ieee = {
        wanted: security.coordinatorIeee,
        taken: false,
        reason: `${why}; devices bound to the old coordinator report nothing until they are paired again`,
      };
    if (security.linkKeys?.length)
      out.linkKeys = {
        written: 0,
        of: security.linkKeys.length,
        reason: `${why}; devices with a unique link key have to join again`,
      };
    return out;
  }

  /** A soft reset (SYS_RESET_REQ type 1), waiting for the stick to say it is back. */
  async #reset(): Promise<void> {
    const back = this.znp.waitFor('sysResetInd', () => true, this.#t.startupMs);
    await this.znp.post('sysResetReq', { type: 1 });
    await back.promise;
  }

  /** The stick's security state for a backup; null for a Z-Stack this does not cover. */
  readSecurity(extendedPanId: string): Promise<StickSecurity | null> {
    return readSecurity(this.znp, this.product, extendedPanId);
  }

  async #deviceInfo(): Promise<Fields> {
    return this.znp.call('utilGetDeviceInfo');
  }

  async #nvRead(id: number): Promise<Buffer | null> {
    const r = await this.znp.request('sysOsalNvRead', { id, offset: 0 });
    return r.status === 0 ? (r.value as Buffer) : null;
  }

  /** Whether the stick already carries this network (same PAN id and extended PAN id). */
  async #carries(n: NetworkParams): Promise<boolean> {
    const pan = await this.#nvRead(NV.PANID);
    const ext = await this.#nvRead(NV.EXTPANID);
    return !!pan && !!ext && pan.equals(hex(n.panId, 2)) && ext.equals(Buffer.from(n.extendedPanId, 'hex'));
  }

  /** Writes the network to NV and forms it with BDB commissioning (Z-Stack 3). */
  async #commission(n: NetworkParams): Promise<void> {
    const write = (id: number, value: Buffer) => this.znp.call('sysOsalNvWrite', { id, offset: 0, value });
    await write(NV.LOGICAL_TYPE, Buffer.of(0)); // coordinator
    await write(NV.PANID, hex(n.panId, 2));
    await write(NV.EXTPANID, Buffer.from(n.extendedPanId, 'hex'));
    await write(NV.CHANLIST, hex(channelMask(n.channel), 4));
    await write(NV.PRECFGKEY, Buffer.from(n.networkKey, 'hex'));
    await write(NV.PRECFGKEYS_ENABLE, Buffer.of(1));
    await this.znp.call('appCnfBdbSetChannel', { isPrimary: 1, channelMask: channelMask(n.channel) });
    await this.znp.call('appCnfBdbSetChannel', { isPrimary: 0, channelMask: 0 });
    const formed = this.znp.waitFor(
      'appCnfBdbCommissioningNotification',
      (f) => f.remainingModes === 0,
      this.#t.startupMs,
    );
    const up = this.znp.waitFor(
      'zdoStateChangeInd',
      (f) => f.state === DEVICE_STATE_COORDINATOR,
      this.#t.startupMs,
    );
    await this.znp.call('appCnfBdbStartCommissioning', { mode: BDB_MODE_FORMATION });
    const done = await formed.promise;
    if (done.status !== 0) throw new Error(`network formation failed (status ${done.status})`);
    await up.promise;
  }

  async #startup(): Promise<void> {
    const up = this.znp.waitFor(
      'zdoStateChangeInd',
      (f) => f.state === DEVICE_STATE_COORDINATOR,
      this.#t.startupMs,
    );
    await this.znp.call('zdoStartupFromApp', { startDelay: 100 });
    await up.promise;
  }

  /** After a coordinator reset: start the network again and re-register the endpoint it forgot. */
  async resume(): Promise<void> {
    if ((await this.#deviceInfo()).deviceState !== DEVICE_STATE_COORDINATOR) await this.#startup();
    await this.registerEndpoint();
  }

  async registerEndpoint(): Promise<void> {
    const r = await this.znp.request('afRegister', {
      endpoint: HEARTH_ENDPOINT,
      profileId: HA_PROFILE,
      deviceId: 0x0005,
      deviceVersion: 0,
      latency: 0,
      inClusters: HEARTH_IN_CLUSTERS,
      outClusters: HEARTH_OUT_CLUSTERS,
    });
    // 0xB8: already registered (the stick kept it).
    if (r.status !== 0 && r.status !== 0xb8) throw new Error(`AF_REGISTER failed (status ${r.status})`);
  }

  async permitJoin(seconds: number): Promise<void> {
    const duration = Math.max(0, Math.min(254, Math.round(seconds)));
    await this.znp.call('zdoMgmtPermitJoinReq', {
      addrMode: 0x0f,
      dstAddr: 0xfffc,
      duration,
      tcSignificance: 0,
    });
  }

  /** The key goes to the trust centre as an already derived key (format 2), bound to the device's IEEE. */
  async addInstallCodeKey(ieee: string, key: Buffer): Promise<void> {
    await this.znp.call('appCnfBdbAddInstallCode', {
      installCodeFormat: INSTALL_CODE_FORMAT_KEY,
      ieee,
      installCode: key,
    });
  }

  /** A ZDO request and the device's answer (the AREQ `rsp` from `nwk`). */
  async zdo(req: MtName, fields: Fields, rsp: MtName, nwk: number, timeoutMs?: number): Promise<Fields> {
    const wait = this.znp.waitFor(rsp, (f) => f.srcAddr === nwk || f.nwkAddr === nwk, timeoutMs);
    try {
      await this.znp.call(req, fields);
    } catch (err) {
      wait.cancel();
      throw err;
    }
    const r = await wait.promise;
    if (typeof r.status === 'number' && r.status !== 0) throw new Error(`${rsp} status ${r.status}`);
    return r;
  }

  /** How long to wait for a device's own answer (an AF confirm, a leave response). */
  get answerMs(): number {
    return this.#t.confirmMs;
  }

  nwkOf(d: Destination): number {
    return this.addresses.get(d.ieee) ?? d.nwk;
  }

  /**
   * Sends one AF frame and waits for its confirm. Channel-access failures and a full buffer are retried
   * after a pause; no route / no ack trigger a route discovery and a fresh look-up of the device's network
   * address (docs/zigbee.md#sending-and-recovery).
   */
  async send(d: Destination, cluster: number, data: Buffer): Promise<void> {
    let last = 0;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const nwk = this.nwkOf(d);
      const { confirmed } = await this.#afRequest('afDataRequest', {
        dstAddr: nwk,
        dstEndpoint: d.endpoint,
        srcEndpoint: HEARTH_ENDPOINT,
        clusterId: cluster,
        options: AF_OPTIONS,
        radius: RADIUS,
        data,
      });
      last = await confirmed.catch(expiredOnTimeout);
      if (last === AfStatus.SUCCESS) {
        this.stats.sent++;
        return;
      }
      if (attempt === ATTEMPTS) break;
      this.stats.retries++;
      if (last === AfStatus.MAC_CHANNEL_ACCESS_FAILURE || last === AfStatus.BUFFER_FULL) {
        await sleep(this.#t.retryBackoffMs);
      } else {
        await this.#recoverRoute(d, nwk);
      }
    }
    this.stats.failed++;
    throw new DeliveryError(last);
  }

  /**
   * One frame to every member of a Zigbee group: APS group addressing, endpoint 0xFF, one radio broadcast
   * instead of one unicast per device. Members do not acknowledge it; the confirm only says the stick sent
   * it, so only a local channel-access failure or a full buffer is retried.
   */
  async sendGroup(group: number, cluster: number, data: Buffer): Promise<void> {
    let last = 0;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const { confirmed } = await this.#afRequest('afDataRequestExt', {
        dstAddrMode: ADDR_MODE_GROUP,
        dstAddr: `0x${group.toString(16).padStart(16, '0')}`,
        dstEndpoint: 0xff,
        dstPanId: 0,
        srcEndpoint: HEARTH_ENDPOINT,
        clusterId: cluster,
        options: 0,
        radius: RADIUS,
        data,
      });
      last = await confirmed.catch(expiredOnTimeout);
      if (last === AfStatus.SUCCESS) {
        this.stats.groupcasts++;
        return;
      }
      if (last !== AfStatus.MAC_CHANNEL_ACCESS_FAILURE && last !== AfStatus.BUFFER_FULL) break;
      if (attempt === ATTEMPTS) break;
      this.stats.retries++;
      await sleep(this.#t.retryBackoffMs);
    }
    this.stats.failed++;
    throw new DeliveryError(last);
  }

  async #recoverRoute(d: Destination, nwk: number): Promise<void> {
    this.stats.routeDiscoveries++;
    await this.znp.call('zdoExtRouteDisc', { dstAddr: nwk, options: 0, radius: RADIUS }).catch(() => {});
    await sleep(this.#t.routeDiscoveryMs);
    try {
      const wait = this.znp.waitFor('zdoNwkAddrRsp', (f) => f.ieee === d.ieee, this.#t.confirmMs);
      await this.znp.call('zdoNwkAddrReq', { ieee: d.ieee, reqType: 0, startIndex: 0 });
      const r = await wait.promise;
      if (r.status === 0) this.addresses.set(d.ieee, r.nwkAddr as number);
    } catch {
      // The device may be asleep or gone; the next attempt tells.
    }
  }

  /**
   * A broadcast AF frame (AF_DATA_REQUEST to 0xFFFF/0xFFFD/0xFFFC): nobody acknowledges it, the confirm
   * only says the stick sent it.
   */
  async sendBroadcast(address: number, endpoint: number, cluster: number, data: Buffer): Promise<void> {
    const { confirmed } = await this.#afRequest('afDataRequest', {
      dstAddr: address,
      dstEndpoint: endpoint,
      srcEndpoint: HEARTH_ENDPOINT,
      clusterId: cluster,
      options: 0,
      radius: RADIUS,
      data,
    });
    const status = await confirmed;
    if (status !== AfStatus.SUCCESS) throw new DeliveryError(status);
  }

  /**
   * One AF data request under a fresh transaction id, its confirm awaited from before the request is sent;
   * `confirmed` is the confirm's status (a ZnpTimeoutError when none comes within confirmMs).
   */
  async #afRequest(
    command: 'afDataRequest' | 'afDataRequestExt',
    fields: Fields,
  ): Promise<{ confirmed: Promise<number> }> {
    this.#transId = (this.#transId + 1) & 0xff;
    const transId = this.#transId;
    const confirm = this.znp.waitFor('afDataConfirm', (f) => f.transId === transId, this.#t.confirmMs);
    try {
      await this.znp.call(command, { ...fields, transId });
    } catch (err) {
      confirm.cancel();
      throw err;
    }
    return { confirmed: confirm.promise.then((c) => c.status as number) };
  }

  async alive(timeoutMs: number): Promise<void> {
    await this.znp.request('sysPing', {}, timeoutMs);
  }

  async nodeDescriptor(nwk: number): Promise<{ logicalType: number; manufacturerCode: number }> {
    const r = await this.zdo(
      'zdoNodeDescReq',
      { dstAddr: nwk, nwkAddrOfInterest: nwk },
      'zdoNodeDescRsp',
      nwk,
    );
    return { logicalType: r.logicalType as number, manufacturerCode: r.manufacturerCode as number };
  }

  async activeEndpoints(nwk: number): Promise<number[]> {
    const r = await this.zdo(
      'zdoActiveEpReq',
      { dstAddr: nwk, nwkAddrOfInterest: nwk },
      'zdoActiveEpRsp',
      nwk,
    );
    return r.endpoints as number[];
  }

  async simpleDescriptor(nwk: number, endpoint: number): Promise<SimpleDescriptor> {
    const s = await this.zdo(
      'zdoSimpleDescReq',
      { dstAddr: nwk, nwkAddrOfInterest: nwk, endpoint },
      'zdoSimpleDescRsp',
      nwk,
    );
    return {
      endpoint: s.endpoint as number,
      profileId: s.profileId as number,
      deviceId: s.deviceId as number,
      inClusters: s.inClusters as number[],
      outClusters: s.outClusters as number[],
    };
  }

  async bind(
    nwk: number,
    b: { srcIeee: string; srcEndpoint: number; cluster: number; dstIeee: string; dstEndpoint: number },
  ): Promise<void> {
    await this.zdo(
      'zdoBindReq',
      {
        dstAddr: nwk,
        srcIeee: b.srcIeee,
        srcEndpoint: b.srcEndpoint,
        clusterId: b.cluster,
        dstAddrMode: 3,
        dstIeee: b.dstIeee,
        dstEndpoint: b.dstEndpoint,
      },
      'zdoBindRsp',
      nwk,
    );
  }

  async leave(nwk: number, ieee: string, timeoutMs?: number): Promise<void> {
    await this.zdo(
      'zdoMgmtLeaveReq',
      { dstAddr: nwk, deviceIeee: ieee, flags: 0 },
      'zdoMgmtLeaveRsp',
      nwk,
      timeoutMs,
    );
  }

  onMessage(listener: (m: MtMessage) => void): void {
    this.znp.onAreq(listener);
  }

  /** The MT indications as radio events (docs/zigbee.md#radio-adapters). */
  onEvent(listener: (e: RadioEvent) => void): void {
    this.znp.onAreq((m) => {
      const f = m.fields;
      switch (m.name) {
        case 'sysResetInd':
          return listener({ type: 'reset', reason: f.reason as number });
        case 'zdoEndDeviceAnnceInd':
          return listener({ type: 'announce', ieee: f.ieee as string, nwk: f.nwkAddr as number });
        case 'zdoLeaveInd':
          return listener({ type: 'left', ieee: f.ieee as string });
        case 'afIncomingMsg':
          return listener({
            type: 'message',
            nwk: f.srcAddr as number,
            srcEndpoint: f.srcEndpoint as number,
            cluster: f.clusterId as number,
            data: f.data as Buffer,
            groupId: f.groupId as number,
            linkQuality: f.linkQuality as number,
          });
        default:
          return;
      }
    });
  }

  close(): Promise<void> {
    return this.znp.close();
  }
}
