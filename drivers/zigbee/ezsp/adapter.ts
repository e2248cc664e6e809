/**
 * The EZSP adapter (Silicon Labs EmberZNet sticks): ASH reset, `version` negotiation, stack configuration
 * and policies, Hearth's endpoint, then resuming the network the stick carries or forming Hearth's; APS
 * frames with `messageSentHandler` confirmation and retries; ZDO as plain APS frames on profile 0; join,
 * leave, route-record and stack-status callbacks (docs/zigbee.md#ezsp).
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
  type RadioStats,
  type RestoreOutcome,
  type SimpleDescriptor,
  type StartHooks,
  type StartResult,
} from '../radio.ts';
import { ZDO_ENDPOINT, ZDO_PROFILE, ZdoCluster, ZdoError, zdoRequest, zdoResponse } from '../zdo.ts';
import { channelMask, type NetworkParams } from '../znp/network.ts';
import { type DeviceLinkKey, FRAME_COUNTER_MARGIN, type StickSecurity } from '../znp/nv-backup.ts';
import type { Transport } from '../znp/transport.ts';
import { AshError, AshSession, type AshTimings } from './ash.ts';
import { Reader, Writer } from './codec.ts';
import { Ezsp, EzspStatusError, stackVersionString } from './ezsp.ts';
import { FrameId } from './frame.ts';
import { writeEui64, writeLinkKeys } from './identity.ts';
import { readHashedTclk, readLinkKeys, readNetworkFrameCounter } from './link-keys.ts';
import {
  APS_OPTION_ENABLE_ROUTE_DISCOVERY,
  APS_OPTION_RETRY,
  type ApsFrame,
  ConfigId,
  Decision,
  DeviceUpdate,
  EmberStatus,
  IncomingType,
  InitialSecurity,
  OutgoingType,
  PolicyId,
  readIncomingMessage,
  readMessageSent,
  readNetworkParameters,
  readStatus,
  ValueId,
  writeInitialSecurity,
  writeNetworkParameters,
  writeSendBroadcast,
  writeSendMulticast,
  writeSendUnicast,
} from './types.ts';

export interface EzspTimings {
  /** ASH link timings (acknowledgement timeout, reset wait, window). */
  ash: Partial<AshTimings>;
  /** How long a command waits for its response. */
  commandMs: number;
  /** How long forming or resuming a network may take. */
  startupMs: number;
  /** Wait before retrying after the stick had no room (full buffers, message limit). */
  retryBackoffMs: number;
  /** Wait after an address look-up before the retry. */
  routeDiscoveryMs: number;
  /** How long a frame waits for its messageSentHandler, a ZDO request for its answer. */
  confirmMs: number;
}

export const DEFAULT_EZSP_TIMINGS: EzspTimings = {
  ash: {},
  commandMs: 5000,
  startupMs: 20_000,
  retryBackoffMs: 2000,
  routeDiscoveryMs: 1000,
  confirmMs: 10_000,
};

/** The HA link key every Zigbee 3.0 device knows ("ZigBeeAlliance09"), for joining. */
const ZIGBEE_ALLIANCE_09 = Buffer.from('5a6967426565416c6c69616e63653039', 'hex');
const ATTEMPTS = 4;
const RADIUS = 30;
/** Group frames go to members within this many hops; non-members relay them this far. */
const MULTICAST_HOPS = 0;
const NONMEMBER_RADIUS = 7;
/** Many-to-one routing: the coordinator as a high-RAM concentrator, route records kept on the stick. */
const CONCENTRATOR_HIGH_RAM = 0xfff9;

/** Configuration for a coordinator (docs/zigbee.md#ezsp); values the stick cannot take are skipped. */
const CONFIG: Array<[number, number]> = [
  [ConfigId.STACK_PROFILE, 2],
  [ConfigId.SECURITY_LEVEL, 5],
  [ConfigId.MAX_HOPS, 30],
  [ConfigId.MAX_END_DEVICE_CHILDREN, 32],
  [ConfigId.INDIRECT_TRANSMISSION_TIMEOUT, 7680],
  [ConfigId.END_DEVICE_POLL_TIMEOUT, 8],
  [ConfigId.ADDRESS_TABLE_SIZE, 16],
  [ConfigId.MULTICAST_TABLE_SIZE, 16],
  [ConfigId.SOURCE_ROUTE_TABLE_SIZE, 200],
  [ConfigId.TRUST_CENTER_ADDRESS_CACHE_SIZE, 2],
  [ConfigId.KEY_TABLE_SIZE, 12],
  [ConfigId.APS_UNICAST_MESSAGE_COUNT, 32],
  [ConfigId.BINDING_TABLE_SIZE, 32],
  [ConfigId.NEIGHBOR_TABLE_SIZE, 16],
];
const POLICIES: Array<[number, number]> = [
  [PolicyId.TRUST_CENTER, Decision.TC_ALLOW_JOINS_AND_REJOINS],
  [PolicyId.TC_KEY_REQUEST, Decision.ALLOW_TC_KEY_REQUESTS_AND_SEND_CURRENT_KEY],
  [PolicyId.APP_KEY_REQUEST, Decision.DENY_APP_KEY_REQUESTS],
  [PolicyId.BINDING_MODIFICATION, Decision.CHECK_BINDING_MODIFICATIONS_ARE_VALID_ENDPOINT_CLUSTERS],
  [PolicyId.MESSAGE_CONTENTS_IN_CALLBACK, Decision.MESSAGE_TAG_ONLY_IN_CALLBACK],
];

export class EzspStickNotFoundError extends Error {
  constructor(path: string) {
    super(`no EmberZNet (EZSP) stick answers on ${path}`);
    this.name = 'EzspStickNotFoundError';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class EzspAdapter implements RadioAdapter {
  readonly kind = 'ezsp' as const;
  readonly ash: AshSession;
  readonly ezsp: Ezsp;
  readonly addresses = new Map<string, number>();
  readonly stats: RadioStats = { sent: 0, groupcasts: 0, retries: 0, routeDiscoveries: 0, failed: 0 };
  /** Relay lists from route records (many-to-one routing), by device network address. */
  readonly routes = new Map<number, number[]>();
  readonly #t: EzspTimings;
  readonly #transport: Transport;
  #tag = 0;
  #zdoSeq = 0;
  #listeners: Array<(e: RadioEvent) => void> = [];
  #networkUp = false;
  #closed = false;
  #resuming: Promise<void> | null = null;
  #ieee = '';
  stackVersion = '';

  constructor(transport: Transport, timings: Partial<EzspTimings> = {}) {
    this.#t = { ...DEFAULT_EZSP_TIMINGS, ...timings };
    this.#transport = transport;
    this.ash = new AshSession(transport, 'host', this.#t.ash);
    this.ezsp = new Ezsp(this.ash, this.#t.commandMs);
    this.ezsp.onCallback((id, p) => this.#callback(id, p));
    // The stick reset by itself (an RSTACK not asked for, an ERROR frame, too many lost ACKs).
    this.ash.onReset((code) => {
      this.#networkUp = false;
      this.ezsp.fail(new AshError('the stick reset', code));
      if (!this.#closed) this.#emit({ type: 'reset', reason: code });
    });
    transport.onClose(() => {
      this.#closed = true;
      this.ezsp.fail(new AshError('the serial link closed'));
    });
  }

  get answerMs(): number {
    return this.#t.confirmMs;
  }

  get #v(): number {
    return this.ezsp.version;
  }

  /** ASH reset and `version`; throws EzspStickNotFoundError when nothing answers like an NCP. */
  async #hello(path: string): Promise<void> {
    try {
      await this.ash.reset();
    } catch {
      throw new EzspStickNotFoundError(path);
    }
    const v = await this.ezsp.negotiate();
    this.stackVersion = stackVersionString(v.stackVersion);
  }

  async #status(name: Parameters<Ezsp['command']>[0], params?: Buffer, timeoutMs?: number): Promise<number> {
    const r = await this.ezsp.command(name, params, timeoutMs);
    return readStatus(r, this.#v);
  }

  async #ok(name: Parameters<Ezsp['command']>[0], params?: Buffer): Promise<void> {
    const s = await this.#status(name, params);
    if (s !== EmberStatus.SUCCESS) throw new EzspStatusError(name, s);
  }

  /** Configuration, policies and the endpoint: what an NCP forgets at every reset. */
  async #configure(): Promise<void> {
    for (const [id, value] of CONFIG)
      await this.#status('setConfigurationValue', new Writer().u8(id).u16(value).done());
    for (const [id, decision] of POLICIES)
      await this.#status('setPolicy', new Writer().u8(id).u16(decision).done());
    const w = new Writer()
      .u8(HEARTH_ENDPOINT)
      .u16(HA_PROFILE)
      .u16(0x0005)
      .u8(0)
      .u8(HEARTH_IN_CLUSTERS.length)
      .u8(HEARTH_OUT_CLUSTERS.length);
    for (const c of HEARTH_IN_CLUSTERS) w.u16(c);
    for (const c of HEARTH_OUT_CLUSTERS) w.u16(c);
    await this.#ok('addEndpoint', w.done());
  }

  /** networkInit: the stick brings up the network kept in its tokens; false when it has none. */
  async #networkInit(): Promise<boolean> {
    const up = this.#stackStatus(EmberStatus.NETWORK_UP);
    const s = await this.#status('networkInit', new Writer().u16(0).done());
    if (s === EmberStatus.NOT_JOINED) {
      up.cancel();
      return false;
    }
    if (s !== EmberStatus.SUCCESS) {
      up.cancel();
      throw new EzspStatusError('networkInit', s);
    }
    await up.promise;
    return true;
  }

  #stackStatus(want: number) {
    return this.ezsp.waitFor(
      'stackStatusHandler',
      (p) => readStatus(new Reader(p), this.#v) === want,
      this.#t.startupMs,
    );
  }

  async #parameters(): Promise<{ extendedPanId: string; panId: number; channel: number }> {
    const r = await this.ezsp.command('getNetworkParameters');
    const status = readStatus(r, this.#v);
    if (status !== EmberStatus.SUCCESS) throw new EzspStatusError('getNetworkParameters', status);
    r.u8(); // node type
    const p = readNetworkParameters(r);
    return { extendedPanId: p.extendedPanId, panId: p.panId, channel: p.radioChannel };
  }

  async start(
    network: NetworkParams | null,
    create: () => NetworkParams,
    path = 'the serial port',
    hooks: StartHooks = {},
  ): Promise<StartResult> {
    await this.#hello(path);
    await this.#configure();
    const { security, ...plain } = network ?? create();
    const params: NetworkParams = plain;
    let commissioned = false;
    let outcome: RestoreOutcome | undefined;
    let carried = await this.#networkInit();
    const same =
      carried &&
      !!network &&
      (await this.#parameters().then(
        (p) => p.extendedPanId === params.extendedPanId && p.panId === params.panId,
      ));
    if (!same) {
      const wanted = network ? security?.coordinatorIeee : undefined;
      if (wanted) {
        outcome = { ieee: await this.#takeIeee(wanted) };
        await hooks.restoreWritten?.(outcome);
        // The NCP reads its EUI64 at boot: a reset, and the start-up again.
        if (outcome.ieee?.taken && (await this.#eui64()) !== wanted) {
          await this.#hello(path);
          await this.#configure();
          carried = await this.#networkInit();
        }
      }
      if (carried) await this.#leave();
      // A replacement for a known network starts above the old stick's counter (docs/zigbee.md).
      const old = security?.frameCounter ?? (network ? params.frameCounter : undefined);
      const keys = network ? (security?.linkKeys ?? []) : [];
      const root = network ? security?.hashedTclk : undefined;
      const written = await this.#form(
        params,
        old === undefined ? undefined : old + FRAME_COUNTER_MARGIN,
        keys,
        root,
      );
      if (root) outcome = { ...outcome, hashedTclk: { applied: true } };
      if (keys.length) {
        outcome = { ...outcome, linkKeys: { written, of: keys.length } };
        if (written < keys.length)
          outcome.linkKeys = {
            written,
            of: keys.length,
            reason: `the stick refused ${keys.length - written} of the devices' link keys; those devices have to join again`,
          };
      }
      if (outcome) await hooks.restoreWritten?.(outcome);
      commissioned = true;
    }
    this.#networkUp = true;
    await this.#afterUp();
    const frameCounter = await this.#frameCounter().catch(() => undefined);
    if (frameCounter !== undefined) params.frameCounter = frameCounter;
    if (outcome?.ieee?.taken && outcome.ieee.wanted !== this.#ieee)
      outcome.ieee = {
        wanted: outcome.ieee.wanted,
        taken: false,
        ...(outcome.ieee.via ? { via: outcome.ieee.via } : {}),
        reason:
          'the stick kept its own IEEE address after the reset; devices bound to the old coordinator report nothing until they are paired again',
      };
    return {
      ieee: this.#ieee,
      network: params,
      commissioned,
      version: `EmberZNet ${this.stackVersion} (EZSP ${this.#v})`,
      ...(outcome ? { restore: outcome } : {}),
    };
  }

  async #eui64(): Promise<string> {
    return (await this.ezsp.command('getEui64')).ieee();
  }

  /** The backup's coordinator IEEE address for the NCP's next boot, when the stick has another (identity.ts). */
  async #takeIeee(wanted: string): Promise<NonNullable<RestoreOutcome['ieee']>> {
    if ((await this.#eui64()) === wanted) return { wanted, taken: true, via: 'already' };
    const w = await writeEui64(this.ezsp, wanted);
    const note = w.note ? { note: w.note } : {};
    return w.written
      ? { wanted, taken: true, via: w.via, ...note }
      : { wanted, taken: false, reason: w.reason, ...note };
  }

  async #afterUp(): Promise<void> {
    const eui = await this.ezsp.command('getEui64');
    this.#ieee = eui.ieee();
    // Many-to-one routing so large networks keep working: devices send route records, the stick keeps them.
    await this.#status(
      'setConcentrator',
      new Writer().bool(true).u16(CONCENTRATOR_HIGH_RAM).u16(10).u16(90).u8(4).u8(3).u8(0).done(),
    ).catch(() => undefined);
  }

  async #leave(): Promise<void> {
    const down = this.#stackStatus(EmberStatus.NETWORK_DOWN);
    const s = await this.#status('leaveNetwork');
    if (s !== EmberStatus.SUCCESS) {
      down.cancel();
      throw new EzspStatusError('leaveNetwork', s);
    }
    await down.promise;
  }

  /**
   * Initial security state (network key, hashed trust-centre link key), then formNetwork. `root`: the old
   * stick's hashed trust-centre link key, so devices' derived keys stay the same; without one the
   * well-known key is the root, as Hearth has always formed.
   */
  async #form(
    n: NetworkParams,
    frameCounter?: number,
    keys: DeviceLinkKey[] = [],
    root?: string,
  ): Promise<number> {
    if (frameCounter !== undefined)
      await this.#ok(
        'setValue',
        new Writer()
          .u8(ValueId.NWK_FRAME_COUNTER)
          .lv(new Writer().u32(Math.min(frameCounter, 0xffffffff)).done())
          .done(),
      );
    const bitmask =
      InitialSecurity.TRUST_CENTER_GLOBAL_LINK_KEY |
      InitialSecurity.HAVE_PRECONFIGURED_KEY |
      InitialSecurity.HAVE_NETWORK_KEY |
      InitialSecurity.TRUST_CENTER_USES_HASHED_LINK_KEY |
      InitialSecurity.REQUIRE_ENCRYPTED_KEY |
      (frameCounter !== undefined ? InitialSecurity.NO_FRAME_COUNTER_RESET : 0);
    await this.#ok(
      'setInitialSecurityState',
      writeInitialSecurity(new Writer(), {
        bitmask,
        preconfiguredKey: root ? Buffer.from(root, 'hex') : ZIGBEE_ALLIANCE_09,
        networkKey: Buffer.from(n.networkKey, 'hex'),
        networkKeySequenceNumber: 0,
        preconfiguredTrustCenterEui64: '0x0000000000000000',
      }).done(),
    );
    // After the security state, before forming (the key table is part of it).
    const written = await writeLinkKeys(this.ezsp, keys);
    const up = this.#stackStatus(EmberStatus.NETWORK_UP);
    const s = await this.#status(
      'formNetwork',
      writeNetworkParameters(new Writer(), {
        extendedPanId: n.extendedPanId,
        panId: n.panId,
        radioTxPower: 5,
        radioChannel: n.channel,
        joinMethod: 0,
        nwkManagerId: 0,
        nwkUpdateId: 0,
        channels: channelMask(n.channel),
      }).done(),
    );
    if (s !== EmberStatus.SUCCESS) {
      up.cancel();
      throw new EzspStatusError('formNetwork', s);
    }
    await up.promise;
    return written;
  }

  /** The outgoing NWK frame counter (getNetworkKeyInfo, protocol 13 and later). */
  async #frameCounter(): Promise<number | undefined> {
    if (this.#v < 13) return undefined;
    const r = await this.ezsp.command('getNetworkKeyInfo');
    if (r.u32() !== 0) return undefined;
    r.bool();
    r.bool();
    r.u8();
    r.u8();
    return r.u32();
  }

  resume(): Promise<void> {
    const run = async () => {
      await this.#hello('the serial port');
      await this.#configure();
      if (!(await this.#networkInit())) throw new Error('the stick lost its network');
      this.#networkUp = true;
      await this.#afterUp();
    };
    const p = run().finally(() => {
      if (this.#resuming === p) this.#resuming = null;
    });
    this.#resuming = p;
    return p;
  }

  /** `nop` answered; a stick coming back from a reset of its own counts as alive once it is back. */
  async alive(timeoutMs: number): Promise<void> {
    if (this.#resuming) return this.#resuming;
    try {
      await this.ezsp.command('nop', Buffer.alloc(0), timeoutMs);
    } catch (err) {
      // The reset that failed the nop started a resume (the reset event comes first).
      if (this.#resuming) return this.#resuming;
      throw err;
    }
  }

  /**
   * The stick's security state for a backup: the frame counter, the key table's device keys with their
   * counters and, with hashed link keys, the trust-centre link key (docs/zigbee.md#exporting-the-devices-link-keys).
   */
  async readSecurity(_extendedPanId: string): Promise<StickSecurity | null> {
    const fc = this.#v >= 13 ? await this.#frameCounter() : await readNetworkFrameCounter(this.ezsp);
    if (fc === undefined) return null;
    const sec: StickSecurity = { zstack: 'ezsp', frameCounter: fc };
    const keys = await readLinkKeys(this.ezsp);
    if (keys.length) sec.linkKeys = keys;
    // Optional for the export (zigpy's extra); a stick that will not say still gives its device keys.
    const tclk = await readHashedTclk(this.ezsp).catch(() => null);
    if (tclk) sec.hashedTclk = tclk;
    return sec;
  }

  async permitJoin(seconds: number): Promise<void> {
    const duration = Math.max(0, Math.min(254, Math.round(seconds)));
    // Routers open too (Mgmt_Permit_Joining_req to every router), then the coordinator itself.
    await this.#zdoBroadcast(
      0xfffc,
      ZdoCluster.MGMT_PERMIT_JOINING_REQ,
      zdoRequest.permitJoining(duration),
    ).catch(() => undefined);
    await this.#ok('permitJoining', Buffer.of(duration));
  }

  /**
   * A transient link key for one device: the trust centre accepts it for that EUI64 while the device
   * joins and forgets it after its timeout (300 s by default). EZSP 13 and later replaced
   * `addTransientLinkKey` (EmberStatus) by `importTransientKey` (sl_status_t), which takes a flags byte
   * on protocol 13 only.
   */
  async addInstallCodeKey(ieee: string, key: Buffer): Promise<void> {
    if (this.#v < 13) return this.#ok('addTransientLinkKey', new Writer().ieee(ieee).bytes(key).done());
    const w = new Writer().ieee(ieee).bytes(key);
    if (this.#v === 13) w.u8(0);
    const r = await this.ezsp.command('importTransientKey', w.done());
    const sl = r.u32();
    if (sl !== 0) throw new EzspStatusError('importTransientKey', sl);
  }

  nwkOf(d: Destination): number {
    return this.addresses.get(d.ieee) ?? d.nwk;
  }

  #nextTag(): number {
    this.#tag = (this.#tag + 1) & 0xff;
    return this.#tag;
  }

  #aps(
    profileId: number,
    clusterId: number,
    srcEp: number,
    dstEp: number,
    options: number,
    groupId = 0,
  ): ApsFrame {
    return {
      profileId,
      clusterId,
      sourceEndpoint: srcEp,
      destinationEndpoint: dstEp,
      options,
      groupId,
      sequence: 0,
    };
  }

  /** Waits for the messageSentHandler of `tag`; its status (DELIVERY_FAILED when none came in time). */
  #sent(tag: number) {
    return this.ezsp.waitFor(
      'messageSentHandler',
      (p) => readMessageSent(this.#v, new Reader(p)).tag === tag,
      this.#t.confirmMs,
    );
  }

  /** One unicast and its confirmation; the stick's status (0 delivered). */
  async #unicastOnce(nwk: number, aps: ApsFrame, data: Buffer): Promise<number> {
    const tag = this.#nextTag();
    const sent = this.#sent(tag);
    let status: number;
    try {
      status = await this.#status(
        'sendUnicast',
        writeSendUnicast(this.#v, { type: OutgoingType.DIRECT, destination: nwk, aps, tag, contents: data }),
      );
    } catch (err) {
      sent.cancel();
      throw err;
    }
    if (status !== EmberStatus.SUCCESS) {
      sent.cancel();
      return status;
    }
    return sent.promise.then(
      (p) => readMessageSent(this.#v, new Reader(p)).status,
      () => EmberStatus.DELIVERY_FAILED,
    );
  }

  #busy = (s: number) =>
    s === EmberStatus.NO_BUFFERS ||
    s === EmberStatus.MAX_MESSAGE_LIMIT_REACHED ||
    s === EmberStatus.NETWORK_BUSY;

  /**
   * A unicast with APS acknowledgement and route discovery. A stick without room is retried after a pause;
   * a delivery failure looks the device's address up again (it may have moved) before the retry.
   */
  async send(d: Destination, cluster: number, data: Buffer): Promise<void> {
    await this.#needUp();
    let last = 0;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const nwk = this.nwkOf(d);
      const aps = this.#aps(
        HA_PROFILE,
        cluster,
        HEARTH_ENDPOINT,
        d.endpoint,
        APS_OPTION_RETRY | APS_OPTION_ENABLE_ROUTE_DISCOVERY,
      );
      last = await this.#unicastOnce(nwk, aps, data);
      if (last === EmberStatus.SUCCESS) {
        this.stats.sent++;
        return;
      }
      if (attempt === ATTEMPTS) break;
      this.stats.retries++;
      if (this.#busy(last)) await sleep(this.#t.retryBackoffMs);
      else await this.#recoverRoute(d);
    }
    this.stats.failed++;
    throw new DeliveryError(last);
  }

  async sendGroup(group: number, cluster: number, data: Buffer): Promise<void> {
    await this.#needUp();
    let last = 0;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const tag = this.#nextTag();
      const sent = this.#sent(tag);
      const aps = this.#aps(HA_PROFILE, cluster, HEARTH_ENDPOINT, 0xff, 0, group);
      try {
        last = await this.#status(
          'sendMulticast',
          writeSendMulticast(this.#v, {
            aps,
            hops: MULTICAST_HOPS,
            nonmemberRadius: NONMEMBER_RADIUS,
            tag,
            contents: data,
          }),
        );
      } catch (err) {
        sent.cancel();
        throw err;
      }
      if (last === EmberStatus.SUCCESS)
        last = await sent.promise.then(
          (p) => readMessageSent(this.#v, new Reader(p)).status,
          () => EmberStatus.DELIVERY_FAILED,
        );
      else sent.cancel();
      if (last === EmberStatus.SUCCESS) {
        this.stats.groupcasts++;
        return;
      }
      if (!this.#busy(last) || attempt === ATTEMPTS) break;
      this.stats.retries++;
      await sleep(this.#t.retryBackoffMs);
    }
    this.stats.failed++;
    throw new DeliveryError(last);
  }

  async sendBroadcast(address: number, endpoint: number, cluster: number, data: Buffer): Promise<void> {
    const profile = endpoint === ZDO_ENDPOINT ? ZDO_PROFILE : HA_PROFILE;
    const src = endpoint === ZDO_ENDPOINT ? ZDO_ENDPOINT : HEARTH_ENDPOINT;
    const tag = this.#nextTag();
    const sent = this.#sent(tag);
    const aps = this.#aps(profile, cluster, src, endpoint, 0);
    const s = await this.#status(
      'sendBroadcast',
      writeSendBroadcast(this.#v, { destination: address, aps, radius: RADIUS, tag, contents: data }),
    ).catch((err: unknown) => {
      sent.cancel();
      throw err;
    });
    if (s !== EmberStatus.SUCCESS) {
      sent.cancel();
      throw new DeliveryError(s);
    }
    const done = readMessageSent(this.#v, new Reader(await sent.promise)).status;
    if (done !== EmberStatus.SUCCESS) throw new DeliveryError(done);
  }

  #zdoBroadcast(address: number, cluster: number, payload: Buffer): Promise<void> {
    this.#zdoSeq = (this.#zdoSeq + 1) & 0xff;
    return this.sendBroadcast(
      address,
      ZDO_ENDPOINT,
      cluster,
      Buffer.concat([Buffer.of(this.#zdoSeq), payload]),
    );
  }

  /** The device's address looked up again by its IEEE address (NWK_addr_req, broadcast). */
  async #recoverRoute(d: Destination): Promise<void> {
    this.stats.routeDiscoveries++;
    this.#zdoSeq = (this.#zdoSeq + 1) & 0xff;
    const seq = this.#zdoSeq;
    const answer = this.#zdoAnswer(ZdoCluster.NWK_ADDR_REQ, seq, null);
    try {
      await this.sendBroadcast(
        0xfffd,
        ZDO_ENDPOINT,
        ZdoCluster.NWK_ADDR_REQ,
        Buffer.concat([Buffer.of(seq), zdoRequest.nwkAddr(d.ieee)]),
      );
      const p = await answer.promise;
      if (zdoResponse.status(p) === 0) {
        const r = zdoResponse.nwkAddr(p);
        if (r.ieee === d.ieee) this.addresses.set(d.ieee, r.nwk);
      }
    } catch {
      answer.cancel();
      // The device may be asleep or gone; the next attempt tells.
    }
    await sleep(this.#t.routeDiscoveryMs);
  }

  /** Waits for the answer to ZDO request `cluster` with sequence `seq` (from `nwk`, when given). */
  #zdoAnswer(cluster: number, seq: number, nwk: number | null, timeoutMs = this.#t.confirmMs) {
    const wait = this.ezsp.waitFor(
      'incomingMessageHandler',
      (p) => {
        const m = readIncomingMessage(this.#v, new Reader(p));
        return (
          m.aps.profileId === ZDO_PROFILE &&
          m.aps.clusterId === (cluster | ZdoCluster.RESPONSE) &&
          m.contents[0] === seq &&
          (nwk === null || m.sender === nwk)
        );
      },
      timeoutMs,
    );
    const promise = wait.promise.then((p) =>
      readIncomingMessage(this.#v, new Reader(p)).contents.subarray(1),
    );
    // Like the wait itself: the link may fail it (stick closed) while the request is still being sent, before
    // anyone awaits the answer; that failure reaches the caller through the send, not as an unhandled rejection.
    promise.catch(() => {});
    return { promise, cancel: wait.cancel };
  }

  /** A ZDO request to `nwk` and the device's answer (status checked). */
  async #zdo(nwk: number, cluster: number, payload: Buffer, timeoutMs?: number): Promise<Buffer> {
    await this.#needUp();
    this.#zdoSeq = (this.#zdoSeq + 1) & 0xff;
    const seq = this.#zdoSeq;
    const answer = this.#zdoAnswer(cluster, seq, nwk, timeoutMs);
    const aps = this.#aps(
      ZDO_PROFILE,
      cluster,
      ZDO_ENDPOINT,
      ZDO_ENDPOINT,
      APS_OPTION_RETRY | APS_OPTION_ENABLE_ROUTE_DISCOVERY,
    );
    const s = await this.#unicastOnce(nwk, aps, Buffer.concat([Buffer.of(seq), payload])).catch(
      (err: unknown) => {
        answer.cancel();
        throw err;
      },
    );
    if (s !== EmberStatus.SUCCESS) {
      answer.cancel();
      throw new DeliveryError(s);
    }
    const p = await answer.promise;
    const status = zdoResponse.status(p);
    if (status !== 0) throw new ZdoError(cluster, status);
    return p;
  }

  async nodeDescriptor(nwk: number): Promise<{ logicalType: number; manufacturerCode: number }> {
    return zdoResponse.nodeDesc(await this.#zdo(nwk, ZdoCluster.NODE_DESC_REQ, zdoRequest.nodeDesc(nwk)));
  }

  async activeEndpoints(nwk: number): Promise<number[]> {
    return zdoResponse.activeEp(await this.#zdo(nwk, ZdoCluster.ACTIVE_EP_REQ, zdoRequest.activeEp(nwk)))
      .endpoints;
  }

  async simpleDescriptor(nwk: number, endpoint: number): Promise<SimpleDescriptor> {
    return zdoResponse.simpleDesc(
      await this.#zdo(nwk, ZdoCluster.SIMPLE_DESC_REQ, zdoRequest.simpleDesc(nwk, endpoint)),
    );
  }

  async bind(
    nwk: number,
    b: { srcIeee: string; srcEndpoint: number; cluster: number; dstIeee: string; dstEndpoint: number },
  ): Promise<void> {
    await this.#zdo(
      nwk,
      ZdoCluster.BIND_REQ,
      zdoRequest.bind(b.srcIeee, b.srcEndpoint, b.cluster, b.dstIeee, b.dstEndpoint),
    );
  }

  async leave(nwk: number, ieee: string, timeoutMs?: number): Promise<void> {
    await this.#zdo(nwk, ZdoCluster.MGMT_LEAVE_REQ, zdoRequest.mgmtLeave(ieee), timeoutMs);
  }

  /** Sends made while the stick comes back from a reset wait for it rather than fail. */
  async #needUp(): Promise<void> {
    if (this.#resuming) await this.#resuming.catch(() => {});
    if (!this.#networkUp) throw new AshError('the Zigbee network is not up on the stick');
  }

  onEvent(listener: (e: RadioEvent) => void): void {
    this.#listeners.push(listener);
  }

  #emit(e: RadioEvent): void {
    for (const l of this.#listeners) l(e);
  }

  #callback(frameId: number, p: Buffer): void {
    const r = new Reader(p);
    switch (frameId) {
      case FrameId.stackStatusHandler: {
        const s = readStatus(r, this.#v);
        if (s === EmberStatus.NETWORK_DOWN) this.#networkUp = false;
        if (s === EmberStatus.NETWORK_UP) this.#networkUp = true;
        return;
      }
      case FrameId.trustCenterJoinHandler: {
        const nwk = r.u16();
        const ieee = r.ieee();
        const update = r.u8();
        if (update === DeviceUpdate.DEVICE_LEFT) {
          this.addresses.delete(ieee);
          this.#emit({ type: 'left', ieee });
        } else this.addresses.set(ieee, nwk);
        return;
      }
      case FrameId.incomingRouteRecordHandler: {
        const source = r.u16();
        r.ieee();
        r.u8();
        r.i8();
        const relays: number[] = [];
        for (let n = r.u8(); n > 0; n--) relays.push(r.u16());
        this.routes.set(source, relays);
        return;
      }
      case FrameId.incomingMessageHandler: {
        const m = readIncomingMessage(this.#v, r);
        if (m.aps.profileId === ZDO_PROFILE) {
          if (m.aps.clusterId === ZdoCluster.DEVICE_ANNCE && m.contents.length >= 12) {
            const a = zdoResponse.deviceAnnce(m.contents.subarray(1));
            this.addresses.set(a.ieee, a.nwk);
            this.#emit({ type: 'announce', ieee: a.ieee, nwk: a.nwk });
          }
          return;
        }
        this.#emit({
          type: 'message',
          nwk: m.sender,
          srcEndpoint: m.aps.sourceEndpoint,
          cluster: m.aps.clusterId,
          data: m.contents,
          groupId: m.type === IncomingType.MULTICAST ? m.aps.groupId : 0,
          linkQuality: m.lqi,
        });
        return;
      }
      default:
        return;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.ash.close();
    this.ezsp.fail(new AshError('closed'));
    await this.#transport.close();
  }
}
