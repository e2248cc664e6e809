/**
 * A simulated Z-Stack 3 coordinator: speaks UNPI/MT on its end of a PTY pair, keeps NV items, forms a
 * network when commissioned, carries AF frames to and from the simulated devices, and has fault modes.
 */
import { randomBytes } from 'node:crypto';
import { SerialPort } from 'serialport';
import type { Fields } from '../../../drivers/zigbee/znp/codec.ts';
import { ieeeBytes, KEY_VERIFIED, OsalId, seedKey } from '../../../drivers/zigbee/znp/identity.ts';
import {
  AfStatus,
  DEVICE_STATE_COORDINATOR,
  decodeMt,
  type MtName,
  mtFrame,
  NV,
} from '../../../drivers/zigbee/znp/mt.ts';
import { encodeFrame, type Frame, UnpiParser } from '../../../drivers/zigbee/znp/unpi.ts';
import type { HeldKey, Outgoing, SimDevice, SimDeviceName } from './devices.ts';
import { apsAccepts, simulatedNetwork, trustCentreAdmits } from './devices.ts';

export interface Faults {
  /** Ignore SYS_PING until the bootloader-skip byte 0xEF arrives. */
  silentUntilBootloaderSkip: boolean;
  /** The next N AF data requests confirm with a MAC channel-access failure. */
  channelAccessFailures: number;
  /** Devices (by name) unreachable until a route discovery towards them. */
  noRoute: Set<SimDeviceName>;
  /** A route discovery does not help (the device is out of range for good). */
  noRouteSticky: boolean;
  /** Drop attribute reports instead of sending them. */
  dropReports: boolean;
  /** Send reports this late. */
  reportDelayMs: number;
  /** At the next SYS_RESET_REQ the stick goes silent (no SYS_RESET_IND, no answers) until it is plugged again. */
  silentAfterReset: boolean;
}

export const COORDINATOR_IEEE = '0x00124b0099887766';

/** Extended NV item ids (system 1) the simulator keeps. */
const EX = { ADDRMGR: 0x0001, TCLK: 0x0004, APS_KEY_DATA: 0x0006, SEC_MATERIAL: 0x0007 } as const;
const TABLE_SIZE = 16;

export class SimCoordinator {
  readonly devices = simulatedNetwork();
  readonly nv = new Map<number, Buffer>();
  /** Extended NV items (Z-Stack 3.x.0), keyed `<itemId>:<subId>` (system id 1 only). */
  readonly nvEx = new Map<string, Buffer>();
  readonly faults: Faults = {
    silentUntilBootloaderSkip: false,
    channelAccessFailures: 0,
    noRoute: new Set(),
    noRouteSticky: false,
    dropReports: false,
    reportDelayMs: 0,
    silentAfterReset: false,
  };
  /** Every groupcast sent (group id and cluster), newest last. */
  readonly groupcasts: Array<{ group: number; cluster: number }> = [];
  /** Every MT request received, newest last (name and fields). */
  readonly log: Array<{ name: MtName; fields: Fields }> = [];
  state = 0;
  formed = false;
  permitJoinUntil = 0;
  /** Devices join by themselves whenever permit-join is open. */
  autoJoin = false;
  /** Link keys given with `APP_CNF_BDB_ADD_INSTALLCODE`, by IEEE address. */
  readonly installCodeKeys = new Map<string, Buffer>();
  readonly endpoints = new Set<number>();
  #port: SerialPort | null = null;
  #parser = new UnpiParser((f) => this.#onFrame(f));
  #awake = true;
  #afListeners: Array<(d: SimDevice, cluster: number) => void> = [];
  /** The IEEE address the stack took from the EXTADDR NV item when it last started. */
  #ieee = COORDINATOR_IEEE;

  constructor(opts: { blank?: boolean } = {}) {
    // The factory address sits in EXTADDR; a restore may write another, taken at the next start.
    this.nv.set(OsalId.EXTADDR, ieeeBytes(COORDINATOR_IEEE));
    if (opts.blank === false) this.#formDefault();
  }

  /** The coordinator's IEEE address now (`0x…`). */
  get ieee(): string {
    return this.#ieee;
  }

  /** What Z-Stack reads at start-up: EXTADDR (a deleted item means the factory address). */
  #boot(): void {
    const ext = this.nv.get(OsalId.EXTADDR);
    this.#ieee = ext?.length === 8 ? `0x${Buffer.from(ext).reverse().toString('hex')}` : COORDINATOR_IEEE;
  }

  /** A stick that already carries a network (for tests that do not commission). */
  #formDefault(): void {
    this.nv.set(NV.PANID, Buffer.from([0x34, 0x12]));
    this.nv.set(NV.EXTPANID, Buffer.from('dddddddddddddddd', 'hex'));
    this.nv.set(NV.CHANLIST, Buffer.from([0, 0, 0, 0x08]));
    this.nv.set(NV.PRECFGKEY, Buffer.alloc(16, 1));
    this.#formSecurity();
    this.formed = true;
  }

  get panId(): number | null {
    return this.nv.get(NV.PANID)?.readUInt16LE(0) ?? null;
  }

  async attach(path: string): Promise<void> {
    const port = new SerialPort({ path, baudRate: 115_200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
    this.#parser.reset();
    port.on('data', (b: Buffer) => {
      if (this.faults.silentUntilBootloaderSkip && b.includes(0xef))
        this.faults.silentUntilBootloaderSkip = false;
      this.#parser.push(b);
    });
    port.on('error', () => {});
    port.on('close', () => {
      if (this.#port === port) this.#port = null;
    });
    this.#port = port;
    this.#awake = true;
  }

  async detach(): Promise<void> {
    const port = this.#port;
    this.#port = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  /** Raw bytes onto the wire (garbage, half frames). */
  writeRaw(bytes: Buffer): void {
    this.#port?.write(bytes);
  }

  send(name: MtName, fields: Fields = {}, answer = false): void {
    this.#write(mtFrame(name, fields, answer));
  }

  #write(frame: Frame): void {
    if (this.#port?.isOpen) this.#port.write(encodeFrame(frame));
  }

  /** Fires for every AF frame a device receives (for benchmarks and tests). */
  onDeviceFrame(listener: (d: SimDevice, cluster: number) => void): void {
    this.#afListeners.push(listener);
  }

  /** Unplugged and plugged back: the stick boots with its NV but has to be started again. */
  powerCycle(): void {
    this.endpoints.clear();
    this.state = 0;
    this.#boot();
  }

  /** The stick restarts: registrations are lost, the network is left until started again. */
  reset(reason = 0): void {
    this.endpoints.clear();
    this.state = 0;
    this.#boot();
    this.send('sysResetInd', { reason, transportRev: 2, product: 1, major: 2, minor: 7, maint: 1 });
  }

  #onFrame(frame: Frame) {
    let msg: ReturnType<typeof decodeMt>;
    try {
      msg = decodeMt(frame);
    } catch {
      return;
    }
    if (!msg || !this.#awake) return;
    this.log.push({ name: msg.name, fields: msg.fields });
    const f = msg.fields;
    const ok = (extra: Fields = {}) => this.send(msg.name, { status: 0, ...extra }, true);
    const n = (k: string) => (typeof f[k] === 'number' ? (f[k] as number) : 0);
    switch (msg.name) {
      case 'sysPing':
        if (this.faults.silentUntilBootloaderSkip) return;
        return this.send('sysPing', { capabilities: 0x0659 }, true);
      case 'sysVersion':
        return this.send('sysVersion', { transportRev: 2, product: 1, major: 2, minor: 7, maint: 1 }, true);
      case 'sysResetReq':
        if (this.faults.silentAfterReset) {
          this.faults.silentAfterReset = false;
          this.#awake = false;
          return;
        }
        setTimeout(() => this.reset(0), 5);
        return;
      case 'sysOsalNvRead': {
        const v = this.nv.get(n('id'));
        return v
          ? ok({ value: v })
          : this.send('sysOsalNvRead', { status: 0x0a, value: Buffer.alloc(0) }, true);
      }
      case 'sysOsalNvWrite':
        this.nv.set(n('id'), Buffer.from(f.value as Buffer));
        return ok();
      case 'sysOsalNvItemInit':
        if (!this.nv.has(n('id'))) this.nv.set(n('id'), Buffer.from(f.value as Buffer));
        return ok();
      case 'sysNvRead': {
        const v = this.nvEx.get(`${n('itemId')}:${n('subId')}`);
        return v ? ok({ value: v }) : this.send('sysNvRead', { status: 0x0a, value: Buffer.alloc(0) }, true);
      }
      case 'sysNvCreate':
        this.nvEx.set(`${n('itemId')}:${n('subId')}`, Buffer.alloc(n('len')));
        return ok();
      case 'sysNvWrite': {
        const k = `${n('itemId')}:${n('subId')}`;
        if (!this.nvEx.has(k)) return this.send('sysNvWrite', { status: 0x0a }, true);
        this.nvEx.set(k, Buffer.from(f.value as Buffer));
        return ok();
      }
      case 'utilGetDeviceInfo':
        return ok({ ieee: this.#ieee, nwkAddr: 0, deviceType: 7, deviceState: this.state, assoc: [] });
      case 'appCnfBdbSetChannel':
        return ok();
      case 'appCnfBdbStartCommissioning':
        ok();
        setTimeout(() => {
          this.formed = this.nv.has(NV.PANID) && this.nv.has(NV.EXTPANID) && this.nv.has(NV.PRECFGKEY);
          if (!this.formed)
            return this.send('appCnfBdbCommissioningNotification', { status: 2, mode: 4, remainingModes: 0 });
          this.#formSecurity();
          this.#start();
          this.send('appCnfBdbCommissioningNotification', { status: 0, mode: 4, remainingModes: 0 });
        }, 20);
        return;
      case 'zdoStartupFromApp':
        ok();
        if (this.formed) setTimeout(() => this.#start(), 10);
        return;
      case 'afRegister':
        if (this.endpoints.has(n('endpoint'))) return this.send('afRegister', { status: 0xb8 }, true);
        this.endpoints.add(n('endpoint'));
        return ok();
      case 'appCnfBdbAddInstallCode': {
        const code = f.installCode as Buffer;
        // Format 1 carries the code with its CRC, format 2 the 16-byte key; the simulator takes the key.
        if (n('installCodeFormat') !== 2 || code.length !== 16)
          return this.send('appCnfBdbAddInstallCode', { status: 1 }, true);
        this.installCodeKeys.set(String(f.ieee).toLowerCase(), Buffer.from(code));
        return ok();
      }
      case 'zdoMgmtPermitJoinReq': {
        ok();
        const duration = n('duration');
        this.permitJoinUntil = duration ? Date.now() + duration * 1000 : 0;
        this.send('zdoPermitJoinInd', { duration });
        if (this.autoJoin && duration)
          for (const d of this.devices.values()) if (!d.joined) setTimeout(() => this.join(d.name), 20);
        return;
      }
      case 'afDataRequest':
        return this.#afData(f);
      case 'afDataRequestExt':
        return this.#afGroup(f);
      default:
        return this.#zdo(msg.name, f, ok);
    }
  }

  /** What formation leaves in NV: the security material table, the active key, a fresh TCLK seed. */
  #formSecurity(): void {
    const material = Buffer.alloc(12);
    (this.nv.get(NV.EXTPANID) ?? Buffer.alloc(8)).copy(material, 4);
    this.nvEx.set(`${EX.SEC_MATERIAL}:0`, material);
    const generic = Buffer.alloc(12, 0xff);
    generic.writeUInt32LE(0, 0);
    this.nvEx.set(`${EX.SEC_MATERIAL}:1`, generic);
    this.nv.set(0x003a, Buffer.concat([Buffer.of(0), this.nv.get(NV.PRECFGKEY) ?? Buffer.alloc(16)]));
    this.nv.set(0x0101, randomBytes(16));
    // The APS link key table: a count, then up to 16 entries of 6 bytes.
    this.nv.set(0x004c, Buffer.alloc(2 + 6 * 16));
    // Tables exist in full from the start, their unused entries empty (as on a real stick).
    for (let i = 0; i < TABLE_SIZE; i++) {
      this.nvEx.set(`${EX.TCLK}:${i}`, Buffer.alloc(20));
      this.nvEx.set(`${EX.ADDRMGR}:${i}`, Buffer.from('00ff00000000000000000000', 'hex'));
    }
  }

  /** The first unused table entry (all zeros in the TCLK table), or -1. */
  #freeEntry(): number {
    for (let i = 0; i < TABLE_SIZE; i++) {
      const e = this.nvEx.get(`${EX.TCLK}:${i}`);
      if (e?.every((b) => b === 0)) return i;
    }
    return -1;
  }

  /** The coordinator's outgoing NWK frame counter (security material entry 0). */
  get frameCounter(): number {
    return this.nvEx.get(`${EX.SEC_MATERIAL}:0`)?.readUInt32LE(0) ?? 0;
  }

  #countFrame(): void {
    const e = this.nvEx.get(`${EX.SEC_MATERIAL}:0`);
    if (e) e.writeUInt32LE((e.readUInt32LE(0) + 1) >>> 0, 0);
  }

  #start(): void {
    this.send('zdoStateChangeInd', { state: 8 });
    this.state = DEVICE_STATE_COORDINATOR;
    this.send('zdoStateChangeInd', { state: DEVICE_STATE_COORDINATOR });
  }

  #byNwk(nwk: number): SimDevice | undefined {
    for (const d of this.devices.values()) if (d.joined && d.nwk === nwk) return d;
    return undefined;
  }

  #zdo(name: MtName, f: Fields, ok: (extra?: Fields) => void) {
    const nwk = typeof f.nwkAddrOfInterest === 'number' ? f.nwkAddrOfInterest : (f.dstAddr as number);
    const d = this.#byNwk(nwk);
    switch (name) {
      case 'zdoNodeDescReq':
        ok();
        if (d)
          this.send('zdoNodeDescRsp', {
            srcAddr: d.nwk,
            status: 0,
            nwkAddr: d.nwk,
            logicalType: d.logicalType,
            apsFlags: 0x40,
            macCapabilities: d.logicalType === 1 ? 0x8e : 0x80,
            manufacturerCode: 0x100b,
            tail: Buffer.from('5200005200002c0000', 'hex'),
          });
        return;
      case 'zdoActiveEpReq':
        ok();
        if (d)
          this.send('zdoActiveEpRsp', {
            srcAddr: d.nwk,
            status: 0,
            nwkAddr: d.nwk,
            endpoints: d.endpoints.map((e) => e.id),
          });
        return;
      case 'zdoSimpleDescReq': {
        ok();
        const ep = d?.endpoints.find((e) => e.id === f.endpoint);
        if (d && ep)
          this.send('zdoSimpleDescRsp', {
            srcAddr: d.nwk,
            status: 0,
            nwkAddr: d.nwk,
            length: 8 + 2 * (ep.inClusters.length + ep.outClusters.length),
            endpoint: ep.id,
            profileId: 0x0104,
            deviceId: ep.deviceId,
            deviceVersion: 1,
            inClusters: ep.inClusters,
            outClusters: ep.outClusters,
          });
        return;
      }
      case 'zdoBindReq':
        ok();
        if (d) {
          d.bind(f.clusterId as number, String(f.dstIeee));
          this.send('zdoBindRsp', { srcAddr: d.nwk, status: 0 });
        }
        return;
      case 'zdoNwkAddrReq': {
        ok();
        const byIeee = [...this.devices.values()].find((x) => x.joined && x.ieee === f.ieee);
        if (byIeee)
          this.send('zdoNwkAddrRsp', {
            status: 0,
            ieee: byIeee.ieee,
            nwkAddr: byIeee.nwk,
            startIndex: 0,
            assoc: [],
          });
        return;
      }
      case 'zdoExtRouteDisc': {
        ok();
        const target = this.#byNwk(f.dstAddr as number);
        if (target && !this.faults.noRouteSticky) this.faults.noRoute.delete(target.name);
        return;
      }
      case 'zdoMgmtLeaveReq':
        ok();
        if (d && !this.faults.noRoute.has(d.name)) {
          this.send('zdoMgmtLeaveRsp', { srcAddr: d.nwk, status: 0 });
          this.leave(d.name);
        }
        return;
      default:
        this.send(name, { status: 0 }, true);
    }
  }

  #afData(f: Fields) {
    this.#countFrame();
    const transId = f.transId as number;
    const srcEndpoint = f.srcEndpoint as number;
    this.send('afDataRequest', { status: 0 }, true);
    const d = this.#byNwk(f.dstAddr as number);
    const confirm = (status: number): void => {
      setTimeout(() => this.send('afDataConfirm', { status, endpoint: srcEndpoint, transId }), 2);
    };
    if (this.faults.channelAccessFailures > 0) {
      this.faults.channelAccessFailures--;
      return confirm(AfStatus.MAC_CHANNEL_ACCESS_FAILURE);
    }
    if (!d) return confirm(AfStatus.MAC_NO_ACK);
    if (this.faults.noRoute.has(d.name)) return confirm(AfStatus.NWK_NO_ROUTE);
    confirm(AfStatus.SUCCESS);
    let out: ReturnType<SimDevice['receive']>;
    try {
      out = d.receive(f.dstEndpoint as number, f.clusterId as number, f.data as Buffer);
    } catch {
      return;
    }
    for (const l of this.#afListeners) l(d, f.clusterId as number);
    for (const r of out.replies) setTimeout(() => this.deliver(d, r), 3);
    if (this.faults.dropReports) return;
    for (const r of out.reports) setTimeout(() => this.#report(d, r), 4 + this.faults.reportDelayMs);
  }

  /** A groupcast (address mode 1): every joined member of the group takes it; nobody acknowledges. */
  #afGroup(f: Fields) {
    this.#countFrame();
    const transId = f.transId as number;
    this.send('afDataRequestExt', { status: 0 }, true);
    const confirm = (status: number): void => {
      setTimeout(() => this.send('afDataConfirm', { status, endpoint: f.srcEndpoint as number, transId }), 2);
    };
    if (this.faults.channelAccessFailures > 0) {
      this.faults.channelAccessFailures--;
      return confirm(AfStatus.MAC_CHANNEL_ACCESS_FAILURE);
    }
    confirm(AfStatus.SUCCESS);
    if (f.dstAddrMode !== 1) return;
    const group = Number.parseInt((f.dstAddr as string).slice(-4), 16);
    this.groupcasts.push({ group, cluster: f.clusterId as number });
    for (const d of this.devices.values()) {
      if (!d.joined || !d.groups.has(group)) continue;
      const ep = d.endpoints.find((e) => e.inClusters.includes(f.clusterId as number));
      if (!ep) continue;
      let out: ReturnType<SimDevice['receive']>;
      try {
        out = d.receive(ep.id, f.clusterId as number, f.data as Buffer);
      } catch {
        continue;
      }
      for (const l of this.#afListeners) l(d, f.clusterId as number);
      if (this.faults.dropReports) continue;
      for (const r of out.reports) setTimeout(() => this.#report(d, r), 4 + this.faults.reportDelayMs);
    }
  }

  /** A report goes where the device's binding for its cluster points; another coordinator never hears it. */
  #report(d: SimDevice, o: Outgoing): void {
    if (d.reportsTo(o.cluster, this.#ieee)) this.deliver(d, o);
  }

  /**
   * The key the trust centre holds for a device: a TCLK entry (a seed rotation), an APS link key table
   * entry (address manager entry → APS key data entry), or an install-code key.
   */
  heldKey(ieee: string): HeldKey | undefined {
    const ext = ieeeBytes(ieee);
    const seed = this.nv.get(OsalId.TCLK_SEED);
    for (let i = 0; ; i++) {
      const e = this.nvEx.get(`${EX.TCLK}:${i}`);
      if (!e) break;
      if (seed && e.length >= 19 && e[16] === KEY_VERIFIED && e.subarray(8, 16).equals(ext))
        return { key: seedKey(seed, ieee, e[18] as number), rxCounter: e.readUInt32LE(4) };
    }
    const links = this.nv.get(OsalId.APS_LINK_KEY_TABLE);
    const count = links && links.length >= 2 ? links.readUInt16LE(0) : 0;
    for (let j = 0; links && j < count && 2 + 6 * j + 5 <= links.length; j++) {
      const ame = this.nvEx.get(`${EX.ADDRMGR}:${links.readUInt16LE(2 + 6 * j)}`);
      const data = this.nvEx.get(`${EX.APS_KEY_DATA}:${links.readUInt16LE(4 + 6 * j)}`);
      if (ame?.subarray(4, 12).equals(ext) && data && data.length >= 24)
        return { key: data.subarray(0, 16), rxCounter: data.readUInt32LE(20) };
    }
    const ic = this.installCodeKeys.get(ieee.toLowerCase());
    return ic ? { key: ic, rxCounter: 0 } : undefined;
  }

  /** A frame from a device reaches the coordinator (AF_INCOMING_MSG), if the coordinator can read it. */
  deliver(d: SimDevice, o: Outgoing): boolean {
    if (!apsAccepts(d, this.heldKey(d.ieee))) return false;
    this.send('afIncomingMsg', {
      groupId: 0,
      clusterId: o.cluster,
      srcAddr: d.nwk,
      srcEndpoint: o.srcEndpoint,
      dstEndpoint: 1,
      wasBroadcast: 0,
      linkQuality: 180,
      securityUse: 0,
      timestamp: Date.now() & 0xffffffff,
      transSeq: 0,
      data: o.zcl,
      tail: Buffer.from([d.nwk & 0xff, d.nwk >> 8, 0x1e]),
    });
    return true;
  }

  /** Adds devices to the simulated network (the vendor twins); they join like the others. */
  host(...devices: SimDevice[]): void {
    for (const d of devices) this.devices.set(d.name, d);
  }

  /** A device joins (permit-join must be open): trust-centre indication, then its announce. */
  join(name: SimDeviceName): boolean {
    const d = this.devices.get(name);
    if (!d || !this.formed || Date.now() > this.permitJoinUntil) return false;
    if (d.joined) return true;
    if (!trustCentreAdmits(d, this.installCodeKeys)) return false;
    d.joined = true;
    // The trust centre keeps a link-key entry and an address manager entry per device that joined.
    const index = this.#freeEntry();
    const ext = Buffer.from(d.ieee.slice(2), 'hex').reverse();
    const tclk = Buffer.alloc(20);
    ext.copy(tclk, 8);
    tclk[16] = 2; // verified key
    tclk[18] = d.nwk & 0x0f; // seed shift
    if (index >= 0) this.nvEx.set(`${EX.TCLK}:${index}`, tclk);
    const ame = Buffer.alloc(12);
    ame[0] = 0x03; // assoc | security
    ame.writeUInt16LE(d.nwk, 2);
    ext.copy(ame, 4);
    if (index >= 0) this.nvEx.set(`${EX.ADDRMGR}:${index}`, ame);
    this.send('zdoTcDevInd', { nwkAddr: d.nwk, ieee: d.ieee, parentAddr: 0 });
    this.send('zdoEndDeviceAnnceInd', {
      srcAddr: d.nwk,
      nwkAddr: d.nwk,
      ieee: d.ieee,
      capabilities: d.logicalType === 1 ? 0x8e : 0x80,
    });
    return true;
  }

  leave(name: SimDeviceName): void {
    const d = this.devices.get(name);
    if (!d?.joined) return;
    d.joined = false;
    d.unbindAll();
    d.reporting.clear();
    this.send('zdoLeaveInd', { srcAddr: d.nwk, ieee: d.ieee, request: 0, remove: 0, rejoin: 0 });
  }

  /** The device moved in the mesh and took a new network address (it announces itself again). */
  readdress(name: SimDeviceName, nwk: number): void {
    const d = this.devices.get(name);
    if (!d) return;
    d.nwk = nwk;
    this.send('zdoEndDeviceAnnceInd', { srcAddr: nwk, nwkAddr: nwk, ieee: d.ieee, capabilities: 0x8e });
  }

  /** A device sends something to the coordinator if it is bound there (a remote's button). */
  fromDevice(name: SimDeviceName, o: (d: SimDevice) => Outgoing, needsBind = true): boolean {
    const d = this.devices.get(name);
    if (!d?.joined) return false;
    const out = o(d);
    if (needsBind && !d.binds.has(out.cluster)) return false;
    // Bound or not, a frame goes where the device's binding for its cluster points.
    if (!d.reportsTo(out.cluster, this.#ieee)) return false;
    return this.deliver(d, out);
  }
}
