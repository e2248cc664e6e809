/**
 * A simulated Silicon Labs NCP running EmberZNet: speaks ASH and EZSP on its end of a PTY pair, keeps
 * its network in "tokens" across resets and unplugging, forms a network when told, carries APS frames
 * to and from the simulated devices (ZDO included, as real devices answer it), and has fault modes.
 */
import { SerialPort } from 'serialport';
import { AshSession } from '../../../drivers/zigbee/ezsp/ash.ts';
import { ResetCode } from '../../../drivers/zigbee/ezsp/ash-frame.ts';
import { Reader, Writer } from '../../../drivers/zigbee/ezsp/codec.ts';
import {
  decodeFrame,
  encodeResponse,
  FrameId,
  type FrameName,
  frameName,
} from '../../../drivers/zigbee/ezsp/frame.ts';
import { MFG_CUSTOM_EUI_64 } from '../../../drivers/zigbee/ezsp/identity.ts';
import {
  type ApsFrame,
  DeviceUpdate,
  EmberStatus,
  IncomingType,
  InitialSecurity,
  OutgoingType,
  readInitialSecurity,
  readNetworkParameters,
  readSendBroadcast,
  readSendMulticast,
  readSendUnicast,
  ValueId,
  writeIncomingMessage,
  writeMessageSent,
  writeNetworkParameters,
  writeSendAnswer,
  writeStatus,
} from '../../../drivers/zigbee/ezsp/types.ts';
import { ZDO_PROFILE, ZdoCluster, zdoAnswer, zdoRequest, zdoResponse } from '../../../drivers/zigbee/zdo.ts';
import type { Transport } from '../../../drivers/zigbee/znp/transport.ts';
import type { HeldKey, Outgoing, SimDevice, SimDeviceName } from '../znp-coordinator/devices.ts';
import { apsAccepts, simulatedNetwork, trustCentreAdmits } from '../znp-coordinator/devices.ts';
import { hashedLinkKey } from './hashed-keys.ts';
import { answerKeyRead, type KeyState } from './key-reads.ts';
import { SimNvm3 } from './nvm3.ts';

export const NCP_IEEE = '0x00158d0099aabbcc';
/** EmberStatus ERR_FLASH_WRITE_INHIBITED: the flash to be programmed is programmed already. */
const ERR_FLASH_WRITE_INHIBITED = 0x46;
const BLANK_EUI = Buffer.alloc(8, 0xff);

export interface NcpFaults {
  /** The next N unicasts are refused by the stick for lack of room (MAX_MESSAGE_LIMIT_REACHED). */
  channelAccessFailures: number;
  /** Devices (by name) unreachable until their address is looked up again. */
  noRoute: Set<SimDeviceName>;
  /** An address look-up does not help (the device is gone for good). */
  noRouteSticky: boolean;
  dropReports: boolean;
  reportDelayMs: number;
  /** ASH: the next N ACKs the NCP owes are not sent. */
  lostAcks: number;
  /** ASH: the next N good DATA frames are refused with a NAK. */
  naks: number;
  /**
   * The first RST after the EUI64 was written (a restore's reset) leaves the NCP silent: no RSTACK, no
   * answers, until it is plugged again.
   */
  silentAfterEui64Reset: boolean;
  /**
   * A ZDO request of this cluster (e.g. 0x0002, Node_Desc_req) makes the NCP go silent as it arrives: the
   * sendUnicast is taken and never answered, nor anything after it, until the stick is plugged again.
   */
  silentOnZdo: number | null;
}

/** What survives a reset: the network as the stick's tokens keep it. */
interface Tokens {
  extendedPanId: string;
  panId: number;
  channel: number;
  networkKey: string;
  frameCounter: number;
  /** The trust-centre link key and security bitmask of setInitialSecurityState when it formed. */
  tcLinkKey: string;
  securityBitmask: number;
}

function portTransport(port: SerialPort, muted: () => boolean): Transport {
  const closes: Array<(err?: Error) => void> = [];
  port.on('close', () => {
    for (const l of closes) l();
  });
  return {
    write: (bytes) =>
      new Promise<void>((resolve) => {
        if (!port.isOpen || muted()) return resolve();
        port.write(bytes, () => resolve());
      }),
    onData: (l) => port.on('data', l),
    onClose: (l) => closes.push(l),
    close: () => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())),
  };
}

export class SimNcp {
  readonly devices = simulatedNetwork();
  readonly faults: NcpFaults = {
    channelAccessFailures: 0,
    noRoute: new Set(),
    noRouteSticky: false,
    dropReports: false,
    reportDelayMs: 0,
    lostAcks: 0,
    naks: 0,
    silentAfterEui64Reset: false,
    silentOnZdo: null,
  };
  /** Every EZSP command received, newest last. */
  readonly log: Array<{ name: string; destination?: number; cluster?: number }> = [];
  readonly groupcasts: Array<{ group: number; cluster: number }> = [];
  tokens: Tokens | null = null;
  networkUp = false;
  permitJoinUntil = 0;
  /** Transient link keys (a device's install-code key), by IEEE address. */
  readonly transientKeys = new Map<string, Buffer>();
  /** The key table (unique link keys, `importLinkKey` / `addOrUpdateKeyTableEntry`), by IEEE address. */
  readonly keyTable = new Map<string, HeldKey>();
  /** Keys derived from the hashed trust-centre link key, by root and IEEE, with their incoming counters. */
  #derived = new Map<string, HeldKey>();
  /** The outgoing APS frame counter (`setValue` APS_FRAME_COUNTER). */
  apsFrameCounter = 0;
  /** Configuration values the host set (`setConfigurationValue`); RAM, gone at a reset. */
  readonly config = new Map<number, number>();
  /**
   * The custom EUI64 manufacturing token, least significant byte first: all 0xFF while blank, and like
   * real silicon written once (flash bits only go from 1 to 0 until the page is erased).
   */
  customEui64: Buffer = Buffer.from(BLANK_EUI);
  /** EmberZNet 7.x tokens in NVM3 (the rewritable restored EUI64); null for older firmware without them. */
  readonly nvm3: SimNvm3 | null;
  /** The EUI64 the NCP took at its last boot: the restored-EUI64 token, else the custom one, else the factory one. */
  #eui = NCP_IEEE;
  autoJoin = false;
  readonly endpoints = new Set<number>();
  /** The EZSP protocol version the stick speaks (13: EmberZNet 7.4; 14: 8.x). */
  readonly protocol: number;
  #version = 4;
  #pendingFrameCounter: number | null = null;
  #pendingKey: Buffer | null = null;
  #pendingSecurity: { tcLinkKey: string; securityBitmask: number } | null = null;
  /** A fault: the NCP answers nothing until it is plugged again. */
  #silent = false;
  /** The EUI64 token (either kind) was written since the last boot. */
  #euiWritten = false;
  #port: SerialPort | null = null;
  #ash: AshSession | null = null;
  #callbackSeq = 0;
  #apsSeq = 0;
  #zdoSeq = 0x80;
  #afListeners: Array<(d: SimDevice, cluster: number) => void> = [];

  constructor(opts: { blank?: boolean; protocol?: number; customEui64?: string; nvm3?: boolean } = {}) {
    this.protocol = opts.protocol ?? 13;
    this.nvm3 = opts.nvm3 === false ? null : new SimNvm3();
    if (opts.customEui64) {
      this.customEui64 = Buffer.from(opts.customEui64.replace(/^0x/, ''), 'hex').reverse();
      this.#boot();
    }
    if (opts.blank === false)
      this.tokens = {
        extendedPanId: 'dddddddddddddddd',
        panId: 0x1234,
        channel: 11,
        networkKey: '01'.repeat(16),
        frameCounter: 0,
        tcLinkKey: Buffer.from('ZigBeeAlliance09').toString('hex'),
        securityBitmask: 0,
      };
  }

  /** The NCP's IEEE address now (`0x…`). */
  get ieee(): string {
    return this.#eui;
  }

  #boot(): void {
    const custom = this.customEui64.equals(BLANK_EUI)
      ? NCP_IEEE
      : `0x${Buffer.from(this.customEui64).reverse().toString('hex')}`;
    this.#eui = this.nvm3?.override ?? custom;
  }

  get formed(): boolean {
    return !!this.tokens;
  }
  get panId(): number | null {
    return this.tokens?.panId ?? null;
  }
  get frameCounter(): number {
    return this.tokens?.frameCounter ?? 0;
  }
  get ash(): AshSession | null {
    return this.#ash;
  }

  async attach(path: string): Promise<void> {
    const port = new SerialPort({ path, baudRate: 115_200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
    port.on('error', () => {});
    this.#silent = false;
    const ash = new AshSession(
      portTransport(port, () => this.#silent),
      'ncp',
    );
    ash.resetCode = ResetCode.POWER_ON;
    ash.onData((b) => this.#onFrame(b));
    // RST restarts the NCP: what the host set up is gone, the tokens stay.
    ash.onReset(() => {
      this.powerCycle();
      if (this.faults.silentAfterEui64Reset && this.#euiWritten) {
        this.faults.silentAfterEui64Reset = false;
        this.#silent = true;
      }
    });
    this.#port = port;
    this.#ash = ash;
    this.#syncFaults();
  }

  #syncFaults(): void {
    if (!this.#ash) return;
    this.#ash.faults.dropAcks = this.faults.lostAcks;
    this.#ash.faults.nakData = this.faults.naks;
  }

  /** Applies faults.lostAcks / faults.naks to the running ASH session. */
  applyLinkFaults(): void {
    this.#syncFaults();
    this.faults.lostAcks = 0;
    this.faults.naks = 0;
  }

  async detach(): Promise<void> {
    const port = this.#port;
    this.#port = null;
    this.#ash?.close();
    this.#ash = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  /** Raw bytes onto the wire (garbage, half frames). */
  writeRaw(bytes: Buffer): void {
    this.#port?.write(bytes);
  }

  onDeviceFrame(listener: (d: SimDevice, cluster: number) => void): void {
    this.#afListeners.push(listener);
  }

  /** Unplugged and plugged back: the tokens stay, everything else is gone until the host sets it up. */
  powerCycle(): void {
    this.#boot();
    this.networkUp = false;
    this.endpoints.clear();
    this.config.clear();
    this.#version = 4;
  }

  /** The NCP restarts by itself mid-session (a watchdog): it says so with an RSTACK. */
  reset(code: number = ResetCode.WATCHDOG): void {
    this.powerCycle();
    this.#ash?.announceReset(code);
  }

  #respond(seq: number, name: FrameName, params: Buffer, legacy = false): void {
    void this.#ash?.send(encodeResponse(seq, FrameId[name], params, { legacy })).catch(() => {});
  }

  #callback(name: FrameName, params: Buffer, delayMs = 2): void {
    setTimeout(() => {
      this.#callbackSeq = (this.#callbackSeq + 1) & 0xff;
      void this.#ash
        ?.send(encodeResponse(this.#callbackSeq, FrameId[name], params, { callback: true }))
        .catch(() => {});
    }, delayMs);
  }

  #status(s: number): Buffer {
    return writeStatus(new Writer(), this.#version, s).done();
  }

  #onFrame(b: Buffer) {
    if (this.#silent) return;
    const f = decodeFrame(b);
    if (!f || f.response) return;
    const name = frameName(f.frameId);
    this.log.push({ name: name ?? `0x${f.frameId.toString(16)}` });
    const r = new Reader(f.params);
    const v = this.#version;
    const ok = (extra: Buffer = Buffer.alloc(0)) =>
      name && this.#respond(f.seq, name, Buffer.concat([this.#status(EmberStatus.SUCCESS), extra]));
    const keyRead = name && answerKeyRead(name, r, v, this.#keyState());
    if (name && keyRead) return this.#respond(f.seq, name, keyRead);
    switch (name) {
      case 'version': {
        r.u8();
        // Answer in the format it was asked in; the host asks again in the extended format for 8+.
        const legacy = b.length === 4;
        this.#version = this.protocol;
        const stack = this.protocol >= 14 ? 0x8010 : 0x7410;
        return this.#respond(
          f.seq,
          'version',
          new Writer().u8(this.protocol).u8(2).u16(stack).done(),
          legacy,
        );
      }
      case 'nop':
        return this.#respond(f.seq, 'nop', Buffer.alloc(0));
      case 'setConfigurationValue':
        this.config.set(r.u8(), r.u16());
        return ok();
      case 'setPolicy':
      case 'setConcentrator':
        return ok();
      case 'addEndpoint': {
        const ep = r.u8();
        if (this.endpoints.has(ep))
          return this.#respond(f.seq, 'addEndpoint', this.#status(EmberStatus.INVALID_CALL));
        this.endpoints.add(ep);
        return ok();
      }
      case 'networkInit':
        if (!this.tokens) return this.#respond(f.seq, 'networkInit', this.#status(EmberStatus.NOT_JOINED));
        ok();
        this.networkUp = true;
        return this.#callback('stackStatusHandler', this.#status(EmberStatus.NETWORK_UP), 10);
      case 'getNetworkParameters': {
        const t = this.tokens;
        if (!t)
          return this.#respond(
            f.seq,
            'getNetworkParameters',
            Buffer.concat([this.#status(EmberStatus.NOT_JOINED), Buffer.alloc(20)]),
          );
        const p = writeNetworkParameters(new Writer().u8(1), {
          extendedPanId: t.extendedPanId,
          panId: t.panId,
          radioTxPower: 5,
          radioChannel: t.channel,
          joinMethod: 0,
          nwkManagerId: 0,
          nwkUpdateId: 0,
          channels: (1 << t.channel) >>> 0,
        }).done();
        return ok(p);
      }
      case 'leaveNetwork':
        ok();
        this.tokens = null;
        this.networkUp = false;
        return this.#callback('stackStatusHandler', this.#status(EmberStatus.NETWORK_DOWN), 5);
      case 'setValue': {
        const id = r.u8();
        const value = r.lv();
        if (id === ValueId.NWK_FRAME_COUNTER && value.length === 4)
          this.#pendingFrameCounter = value.readUInt32LE(0);
        if (id === ValueId.APS_FRAME_COUNTER && value.length === 4)
          this.apsFrameCounter = value.readUInt32LE(0);
        return ok();
      }
      case 'setInitialSecurityState': {
        const init = readInitialSecurity(r);
        this.#pendingKey = init.networkKey;
        this.#pendingSecurity = {
          tcLinkKey: init.preconfiguredKey.toString('hex'),
          securityBitmask: init.bitmask,
        };
        return ok();
      }
      case 'formNetwork': {
        const p = readNetworkParameters(r);
        if (this.tokens || !this.#pendingKey)
          return this.#respond(f.seq, 'formNetwork', this.#status(EmberStatus.INVALID_CALL));
        this.tokens = {
          extendedPanId: p.extendedPanId,
          panId: p.panId,
          channel: p.radioChannel,
          networkKey: this.#pendingKey.toString('hex'),
          frameCounter: this.#pendingFrameCounter ?? 0,
          tcLinkKey: this.#pendingSecurity?.tcLinkKey ?? '00'.repeat(16),
          securityBitmask: this.#pendingSecurity?.securityBitmask ?? 0,
        };
        this.#pendingFrameCounter = null;
        ok();
        this.networkUp = true;
        return this.#callback('stackStatusHandler', this.#status(EmberStatus.NETWORK_UP), 20);
      }
      case 'getEui64':
        return this.#respond(f.seq, 'getEui64', new Writer().ieee(this.#eui).done());
      case 'getMfgToken': {
        const id = r.u8();
        const data = id === MFG_CUSTOM_EUI_64 ? this.customEui64 : Buffer.alloc(0);
        return this.#respond(f.seq, name, new Writer().lv(data).done());
      }
      case 'setMfgToken': {
        const id = r.u8();
        const data = r.lv();
        if (id !== MFG_CUSTOM_EUI_64 || data.length !== 8)
          return this.#respond(f.seq, name, this.#status(EmberStatus.INVALID_CALL));
        // Written once: only a blank token takes a value (it becomes the EUI64 at the next boot).
        if (!this.customEui64.equals(BLANK_EUI))
          return this.#respond(f.seq, name, this.#status(ERR_FLASH_WRITE_INHIBITED));
        this.customEui64 = Buffer.from(data);
        this.#euiWritten = true;
        return ok();
      }
      case 'getTokenData':
      case 'setTokenData':
        // Firmware without the token interface does not know the frames (the default branch's answer).
        if (name === 'setTokenData') this.#euiWritten = true;
        if (this.nvm3) return this.#respond(f.seq, name, this.nvm3.answer(name, f.params, v));
        return this.#invalidCommand(f.seq);
      case 'importLinkKey':
      case 'addOrUpdateKeyTableEntry': {
        // importLinkKey (index, EUI64, key; sl_status) from protocol 13; addOrUpdateKeyTableEntry
        // (EUI64, link key flag, key; EmberStatus) before it.
        const modern = name === 'importLinkKey';
        if (modern !== v >= 13) {
          if (modern) return this.#respond(f.seq, name, new Writer().u32(0x21).done());
          return this.#respond(f.seq, name, this.#status(EmberStatus.INVALID_CALL));
        }
        if (modern) r.u8();
        const ieee = r.ieee();
        if (!modern) r.u8();
        const key = r.bytes(16);
        // A new entry's incoming counter starts at 0.
        this.keyTable.set(ieee.toLowerCase(), { key: Buffer.from(key), rxCounter: 0 });
        return modern ? this.#respond(f.seq, name, new Writer().u32(0).done()) : ok();
      }
      case 'getNetworkKeyInfo':
        return this.#respond(
          f.seq,
          'getNetworkKeyInfo',
          new Writer().u32(0).bool(true).bool(false).u8(0).u8(0).u32(this.frameCounter).done(),
        );
      case 'addTransientLinkKey':
      case 'importTransientKey': {
        const ieee = r.ieee();
        const key = r.bytes(16);
        // importTransientKey carries a flags byte on protocol 13 only; addTransientLinkKey is older than 13.
        const flags = name === 'importTransientKey' && v === 13 ? 1 : 0;
        const wrongVersion = (name === 'addTransientLinkKey') !== v < 13;
        if (wrongVersion || r.remaining !== flags) {
          // SL_STATUS_INVALID_PARAMETER (0x21) / EmberStatus INVALID_CALL.
          if (name === 'importTransientKey') return this.#respond(f.seq, name, new Writer().u32(0x21).done());
          return this.#respond(f.seq, name, this.#status(EmberStatus.INVALID_CALL));
        }
        this.transientKeys.set(ieee.toLowerCase(), Buffer.from(key));
        if (name === 'addTransientLinkKey') return ok();
        return this.#respond(f.seq, name, new Writer().u32(0).done());
      }
      case 'permitJoining': {
        const duration = r.u8();
        this.permitJoinUntil = duration ? Date.now() + duration * 1000 : 0;
        ok();
        if (this.autoJoin && duration)
          for (const d of this.devices.values()) if (!d.joined) setTimeout(() => this.join(d.name), 20);
        return;
      }
      case 'sendUnicast':
        return this.#unicast(f.seq, readSendUnicast(v, r));
      case 'sendMulticast':
        return this.#multicast(f.seq, readSendMulticast(v, r));
      case 'sendBroadcast':
        return this.#broadcast(f.seq, readSendBroadcast(v, r));
      default:
        return this.#invalidCommand(f.seq);
    }
  }

  /** What the key reads answer from (docs/zigbee.md#exporting-the-devices-link-keys). */
  #keyState(): KeyState {
    return {
      keyTable: this.keyTable,
      apsFrameCounter: this.apsFrameCounter,
      config: this.config,
      network: this.tokens,
      eui64: this.#eui,
    };
  }

  /** An unknown command: EZSP answers invalidCommand (frame 0x0058) with EzspStatus ERROR_INVALID_FRAME_ID. */
  #invalidCommand(seq: number): void {
    void this.#ash?.send(encodeResponse(seq, FrameId.invalidCommand, Buffer.of(0x31))).catch(() => {});
  }

  #byNwk(nwk: number): SimDevice | undefined {
    for (const d of this.devices.values()) if (d.joined && d.nwk === nwk) return d;
    return undefined;
  }

  #countFrame(): void {
    if (this.tokens) this.tokens.frameCounter = (this.tokens.frameCounter + 1) >>> 0;
  }

  #sent(type: number, destination: number, aps: ApsFrame, tag: number, status: number): void {
    this.#callback(
      'messageSentHandler',
      writeMessageSent(this.#version, { type, destination, aps, tag, status }),
      2,
    );
  }

  #unicast(seq: number, m: ReturnType<typeof readSendUnicast>) {
    // Where and what, for tests that follow the driver's retries.
    const entry = this.log.at(-1);
    if (entry) Object.assign(entry, { destination: m.destination, cluster: m.aps.clusterId });
    if (!this.networkUp)
      return this.#respond(seq, 'sendUnicast', writeSendAnswer(this.#version, EmberStatus.NETWORK_DOWN, 0));
    if (m.aps.profileId === ZDO_PROFILE && m.aps.clusterId === this.faults.silentOnZdo) {
      this.faults.silentOnZdo = null;
      this.#silent = true;
      return;
    }
    if (this.faults.channelAccessFailures > 0) {
      this.faults.channelAccessFailures--;
      return this.#respond(
        seq,
        'sendUnicast',
        writeSendAnswer(this.#version, EmberStatus.MAX_MESSAGE_LIMIT_REACHED, 0),
      );
    }
    this.#countFrame();
    this.#apsSeq = (this.#apsSeq + 1) & 0xff;
    this.#respond(seq, 'sendUnicast', writeSendAnswer(this.#version, EmberStatus.SUCCESS, this.#apsSeq));
    const d = this.#byNwk(m.destination);
    const sent = (status: number) => this.#sent(OutgoingType.DIRECT, m.destination, m.aps, m.tag, status);
    if (!d || this.faults.noRoute.has(d.name)) return sent(EmberStatus.DELIVERY_FAILED);
    sent(EmberStatus.SUCCESS);
    if (m.aps.profileId === ZDO_PROFILE) return this.#zdo(d, m.aps.clusterId, m.contents);
    let out: ReturnType<SimDevice['receive']>;
    try {
      out = d.receive(m.aps.destinationEndpoint, m.aps.clusterId, m.contents);
    } catch {
      return;
    }
    for (const l of this.#afListeners) l(d, m.aps.clusterId);
    for (const o of out.replies) setTimeout(() => this.deliver(d, o), 3);
    if (this.faults.dropReports) return;
    for (const o of out.reports) setTimeout(() => this.#report(d, o), 4 + this.faults.reportDelayMs);
  }

  /** A report goes where the device's binding for its cluster points; another coordinator never hears it. */
  #report(d: SimDevice, o: Outgoing): void {
    if (d.reportsTo(o.cluster, this.#eui)) this.deliver(d, o);
  }

  /**
   * The key the trust centre holds for a device: its key table entry, an install-code (transient) key, or,
   * with hashed link keys, the key derived from the root the network was formed with (hashed-keys.ts).
   */
  heldKey(ieee: string): HeldKey | undefined {
    const k = ieee.toLowerCase();
    const entry = this.keyTable.get(k);
    if (entry) return entry;
    const transient = this.transientKeys.get(k);
    if (transient) return { key: transient, rxCounter: 0 };
    const t = this.tokens;
    const hashed = InitialSecurity.TRUST_CENTER_USES_HASHED_LINK_KEY;
    if (!t || (t.securityBitmask & hashed) !== hashed) return undefined;
    // Derived on demand; the incoming counter is kept per root and device, as the NCP keeps it in RAM.
    const at = `${t.tcLinkKey}:${k}`;
    let derived = this.#derived.get(at);
    if (!derived) {
      derived = { key: hashedLinkKey(Buffer.from(t.tcLinkKey, 'hex'), k), rxCounter: 0 };
      this.#derived.set(at, derived);
    }
    return derived;
  }

  /** A device answers a ZDO request (profile 0) addressed to it. */
  #zdo(d: SimDevice, cluster: number, contents: Buffer): void {
    const zseq = contents[0] ?? 0;
    const p = contents.subarray(1);
    let answer: Buffer | null = null;
    switch (cluster) {
      case ZdoCluster.NODE_DESC_REQ:
        answer = zdoAnswer.nodeDesc(d.nwk, d.logicalType, 0x100b);
        break;
      case ZdoCluster.ACTIVE_EP_REQ:
        answer = zdoAnswer.activeEp(
          d.nwk,
          d.endpoints.map((e) => e.id),
        );
        break;
      case ZdoCluster.SIMPLE_DESC_REQ: {
        const ep = d.endpoints.find((e) => e.id === p[2]);
        if (ep) answer = zdoAnswer.simpleDesc(d.nwk, { endpoint: ep.id, profileId: 0x0104, ...ep });
        break;
      }
      case ZdoCluster.BIND_REQ:
        // srcIeee(8) srcEp(1) cluster(2) mode(1) dstIeee(8, least significant first) dstEp(1)
        d.bind(p.readUInt16LE(9), `0x${Buffer.from(p.subarray(12, 20)).reverse().toString('hex')}`);
        answer = zdoAnswer.status(0);
        break;
      case ZdoCluster.MGMT_LEAVE_REQ:
        answer = zdoAnswer.status(0);
        setTimeout(() => this.leave(d.name), 5);
        break;
      default:
        answer = zdoAnswer.status(0x84); // NOT_SUPPORTED
    }
    if (answer)
      this.#zdoFrom(
        d.nwk,
        cluster | ZdoCluster.RESPONSE,
        Buffer.concat([Buffer.of(zseq), answer]),
        IncomingType.UNICAST,
      );
  }

  #zdoFrom(nwk: number, cluster: number, contents: Buffer, type: number, ieee?: string): void {
    const aps: ApsFrame = {
      profileId: ZDO_PROFILE,
      clusterId: cluster,
      sourceEndpoint: 0,
      destinationEndpoint: 0,
      options: 0,
      groupId: 0,
      sequence: 0,
    };
    this.#callback(
      'incomingMessageHandler',
      writeIncomingMessage(this.#version, { type, aps, lqi: 200, rssi: -45, sender: nwk, contents }, ieee),
      3,
    );
  }

  #multicast(seq: number, m: ReturnType<typeof readSendMulticast>) {
    if (this.faults.channelAccessFailures > 0) {
      this.faults.channelAccessFailures--;
      return this.#respond(
        seq,
        'sendMulticast',
        writeSendAnswer(this.#version, EmberStatus.MAX_MESSAGE_LIMIT_REACHED, 0),
      );
    }
    this.#countFrame();
    this.#respond(seq, 'sendMulticast', writeSendAnswer(this.#version, EmberStatus.SUCCESS, 0));
    this.#sent(OutgoingType.MULTICAST, m.aps.groupId, m.aps, m.tag, EmberStatus.SUCCESS);
    const group = m.aps.groupId;
    this.groupcasts.push({ group, cluster: m.aps.clusterId });
    for (const d of this.devices.values()) {
      if (!d.joined || !d.groups.has(group)) continue;
      const ep = d.endpoints.find((e) => e.inClusters.includes(m.aps.clusterId));
      if (!ep) continue;
      let out: ReturnType<SimDevice['receive']>;
      try {
        out = d.receive(ep.id, m.aps.clusterId, m.contents);
      } catch {
        continue;
      }
      for (const l of this.#afListeners) l(d, m.aps.clusterId);
      if (this.faults.dropReports) continue;
      for (const o of out.reports) setTimeout(() => this.#report(d, o), 4 + this.faults.reportDelayMs);
    }
  }

  #broadcast(seq: number, m: ReturnType<typeof readSendBroadcast>) {
    this.#countFrame();
    this.#respond(seq, 'sendBroadcast', writeSendAnswer(this.#version, EmberStatus.SUCCESS, 0));
    this.#sent(OutgoingType.BROADCAST, m.destination, m.aps, m.tag, EmberStatus.SUCCESS);
    if (m.aps.profileId !== ZDO_PROFILE || m.aps.clusterId !== ZdoCluster.NWK_ADDR_REQ) return;
    // NWK_addr_req: the device with that IEEE address answers with where it is now.
    const ieee = zdoResponse.nwkAddr(Buffer.concat([Buffer.of(0), m.contents.subarray(1)])).ieee;
    const d = [...this.devices.values()].find((x) => x.joined && x.ieee === ieee);
    if (!d) return;
    if (!this.faults.noRouteSticky) this.faults.noRoute.delete(d.name);
    else return;
    this.#zdoFrom(
      d.nwk,
      ZdoCluster.NWK_ADDR_REQ | ZdoCluster.RESPONSE,
      Buffer.concat([Buffer.of(m.contents[0] ?? 0), zdoAnswer.nwkAddr(d.ieee, d.nwk)]),
      IncomingType.UNICAST,
    );
  }

  /** A frame from a device reaches the coordinator (incomingMessageHandler), if the coordinator can read it. */
  deliver(d: SimDevice, o: Outgoing): boolean {
    if (!apsAccepts(d, this.heldKey(d.ieee))) return false;
    const aps: ApsFrame = {
      profileId: 0x0104,
      clusterId: o.cluster,
      sourceEndpoint: o.srcEndpoint,
      destinationEndpoint: 1,
      options: 0,
      groupId: 0,
      sequence: 0,
    };
    this.#callback(
      'incomingMessageHandler',
      writeIncomingMessage(
        this.#version,
        { type: IncomingType.UNICAST, aps, lqi: 180, rssi: -50, sender: d.nwk, contents: o.zcl },
        d.ieee,
      ),
      0,
    );
    return true;
  }

  #announce(d: SimDevice): void {
    this.#zdoSeq = (this.#zdoSeq + 1) & 0xff;
    const annce = Buffer.concat([
      Buffer.of(this.#zdoSeq),
      zdoRequest.deviceAnnce(d.nwk, d.ieee, d.logicalType === 1 ? 0x8e : 0x80),
    ]);
    this.#zdoFrom(d.nwk, ZdoCluster.DEVICE_ANNCE, annce, IncomingType.BROADCAST, d.ieee);
  }

  /** A device joins (permit-join must be open): trust-centre join, a route record, then its announce. */
  join(name: SimDeviceName): boolean {
    const d = this.devices.get(name);
    if (!d || !this.networkUp || Date.now() > this.permitJoinUntil) return false;
    if (d.joined) return true;
    if (!trustCentreAdmits(d, this.transientKeys)) return false;
    d.joined = true;
    this.#callback(
      'trustCenterJoinHandler',
      new Writer().u16(d.nwk).ieee(d.ieee).u8(DeviceUpdate.UNSECURED_JOIN).u8(0).u16(0).done(),
      1,
    );
    this.#callback(
      'incomingRouteRecordHandler',
      new Writer().u16(d.nwk).ieee(d.ieee).u8(200).i8(-45).u8(0).done(),
      2,
    );
    this.#announce(d);
    return true;
  }

  leave(name: SimDeviceName): void {
    const d = this.devices.get(name);
    if (!d?.joined) return;
    d.joined = false;
    d.unbindAll();
    d.reporting.clear();
    this.#callback(
      'trustCenterJoinHandler',
      new Writer().u16(d.nwk).ieee(d.ieee).u8(DeviceUpdate.DEVICE_LEFT).u8(3).u16(0).done(),
      1,
    );
  }

  readdress(name: SimDeviceName, nwk: number): void {
    const d = this.devices.get(name);
    if (!d) return;
    d.nwk = nwk;
    this.#announce(d);
  }

  fromDevice(name: SimDeviceName, o: (d: SimDevice) => Outgoing, needsBind = true): boolean {
    const d = this.devices.get(name);
    if (!d?.joined) return false;
    const out = o(d);
    if (needsBind && !d.binds.has(out.cluster)) return false;
    // Bound or not, a frame goes where the device's binding for its cluster points.
    if (!d.reportsTo(out.cluster, this.#eui)) return false;
    return this.deliver(d, out);
  }
}
