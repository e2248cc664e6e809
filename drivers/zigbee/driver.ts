/**
 * The `zigbee` lighting driver: one Z-Stack stick, its network and its devices. Starts (or commissions)
 * the network, interviews devices that join, turns commands into ZCL and reports into states and sensor
 * events, and reopens the stick when it goes away (docs/zigbee.md).
 */
import type { Logger } from 'pino';
import {
  briToLevel254,
  type ConnectionStatus,
  commandColour,
  type DeviceInfo,
  type DriverFactory,
  type DriverInit,
  type DriverSink,
  type GroupTarget,
  type LightCommand,
  type LightingDriver,
  type LightState,
  type LightTarget,
  type SensorReadings,
  xyToZcl,
} from '../lighting/index.ts';
import {
  definitionOf,
  deviceInfo,
  freeZoneId,
  mainEndpoint,
  parseProtocolId,
  protocolIdOf,
  type ZigbeeDeviceRecord,
  type ZigbeeStateStore,
} from './device.ts';
import type { Match, Output } from './devices/index.ts';
import { hasReadings, standardReadings } from './devices/readings.ts';
import { findStick } from './find-stick.ts';
import { setGroupState } from './groups.ts';
import { enrollResponse, statusEvents } from './ias.ts';
import { installCodeKey } from './install-code.ts';
import { interview } from './interview.ts';
import { driverOptions, type ZigbeeDriverOptions } from './options.ts';
import { probeStick } from './probe.ts';
import type { Destination, IncomingFrame, RadioAdapter, RadioEvent, RestoreOutcome } from './radio.ts';
import { type Attrs, applyRecords, toLightState } from './reports.ts';
import {
  failedAttempt,
  finalRecord,
  type RestoreRecord,
  startedRecord,
  writtenRecord,
} from './restore-record.ts';
import { Attr, Cluster, Global, IasZoneCmd } from './zcl/clusters.ts';
import {
  type ClusterCommand,
  moveToColorTemp,
  moveToLevelWithOnOff,
  moveToXy,
  onOff,
  remoteEvent,
} from './zcl/commands.ts';
import type { AttrRecord } from './zcl/foundation.ts';
import { decodeReadRsp, decodeReport } from './zcl/foundation.ts';
import { decodeZcl, type ZclFrame } from './zcl/frame.ts';
import { HUE_BUTTON_CLUSTER, vendorEvent } from './zcl/vendor-remotes.ts';
import { ZclClient } from './zcl-client.ts';
import { randomNetwork } from './znp/network.ts';
import type { StickSecurity } from './znp/nv-backup.ts';
import { openSerial } from './znp/serial.ts';
import type { Transport } from './znp/transport.ts';

export interface ZigbeeObserver {
  /** A device finished its interview (joined, or re-interviewed). */
  joined?(info: DeviceInfo): void;
  /** A device left the network. */
  left?(protocolid: string): void;
  /** A backup was restored onto the stick: what of the old coordinator's identity it took. */
  restored?(outcome: RestoreOutcome): void;
  /** A start attempt failed while a restore is not finished: what it wrote so far and why it stopped. */
  restoreUnfinished?(record: RestoreRecord): void;
}

export interface ZigbeeDriverDeps {
  store: ZigbeeStateStore;
  observer?: ZigbeeObserver;
  openTransport?: (path: string) => Promise<Transport>;
}

/** Light state clusters: their reports become light states, not events. */
const LIGHT_CLUSTERS = new Set<number>([Cluster.ON_OFF, Cluster.LEVEL, Cluster.COLOR]);

export class NotConnectedError extends Error {
  constructor() {
    super('the Zigbee stick is not connected');
    this.name = 'NotConnectedError';
  }
}

export class ZigbeeDriver implements LightingDriver {
  readonly #o: ZigbeeDriverOptions;
  readonly #sink: DriverSink;
  readonly #log: Logger;
  readonly #deps: ZigbeeDriverDeps;
  #adapter: RadioAdapter | null = null;
  #zcl: ZclClient | null = null;
  #coordinatorIeee = '';
  #status: ConnectionStatus = { connected: false, since: new Date().toISOString() };
  #stopped = false;
  #reconnect: ReturnType<typeof setTimeout> | null = null;
  /** Closes the port (or adapter) of a start attempt still running: `stop()` ends the attempt with it. */
  #abortAttempt: (() => Promise<void>) | null = null;
  #liveness: ReturnType<typeof setInterval> | null = null;
  readonly #attrs = new Map<string, Attrs>();
  readonly #pending = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #interviewing = new Set<string>();
  /** IAS zone ids handed to devices whose interview is still running. */
  readonly #zoneIds = new Set<number>();
  /** Per remote: the arrow being held (IKEA's release frame does not say which). */
  readonly #held = new Map<string, { direction?: string }>();
  /** Each IAS device's last zone status (a tamper event only when that bit rises). */
  readonly #zoneStatus = new Map<string, number>();
  /** What each device's table entry remembers between frames. */
  readonly #memory = new Map<string, Record<string, unknown>>();
  /** Hub-timed `no_motion` for sensors that never send it, per device. */
  readonly #noMotion = new Map<string, ReturnType<typeof setTimeout>>();
  #found: DeviceInfo[] | null = null;
  #joinUntil = 0;
  #detail: Record<string, unknown> = {};

  constructor(init: DriverInit, deps: ZigbeeDriverDeps) {
    this.#o = driverOptions(init.options);
    this.#sink = init.sink;
    this.#log = init.log;
    this.#deps = deps;
    init.signal.addEventListener('abort', () => void this.stop());
  }

  async start(): Promise<void> {
    this.#stopped = false;
    try {
      await this.#connect();
    } catch (err) {
      // A stick that is absent or not answering is a link that is down, not a failed start.
      this.#log.warn({ err }, 'zigbee stick not available; retrying');
      this.#scheduleReconnect();
    }
  }

  /**
   * One start attempt. A restore not finished yet (its stick security state still stored, or its record
   * not done) is recorded before the stick is touched and whenever it moves on, so that an attempt that
   * fails part-way loses nothing of its outcome (docs/zigbee.md#when-the-stick-does-not-start-after-a-restore).
   */
  async #connect(): Promise<void> {
    const restore = { record: await this.#unfinishedRestore() };
    try {
      await this.#attempt(restore);
    } catch (err) {
      // Stopped part-way: the restore did not fail, it was not allowed to go on.
      if (restore.record && !this.#stopped) await this.#restoreUnfinished(restore.record, err);
      throw err;
    } finally {
      this.#abortAttempt = null;
    }
  }

  async #unfinishedRestore(): Promise<RestoreRecord | null> {
    const store = this.#deps.store;
    const record = store.restoreRecord();
    const security = store.network()?.security;
    if (security && (!record || record.state === 'done')) {
      const started = startedRecord(security);
      await store.setRestoreRecord(started);
      return started;
    }
    return record && record.state !== 'done' ? record : null;
  }

  async #restoreUnfinished(record: RestoreRecord, err: unknown): Promise<void> {
    const failed = failedAttempt(record, err);
    await this.#deps.store.setRestoreRecord(failed).catch(() => {});
    this.#log.warn(
      { state: failed.state, restore: failed.outcome, reason: failed.lastError },
      'the zigbee restore is not finished: the stick did not start after it; it is reported when the stick starts',
    );
    this.#deps.observer?.restoreUnfinished?.(failed);
  }

  async #attempt(restore: { record: RestoreRecord | null }): Promise<void> {
    const path = this.#o.path || (await findStick());
    if (!path) throw new Error('no Zigbee stick found under /dev/serial/by-id');
    const transport = await (this.#deps.openTransport ?? openSerial)(path);
    this.#abortAttempt = () => transport.close();
    if (this.#stopped) await transport.close();
    const probed = await probeStick(transport, path, this.#o.stick, {
      znp: this.#o.timings,
      ezsp: this.#o.timings,
    }).catch(async (err: unknown) => {
      await transport.close().catch(() => {});
      throw err;
    });
    const adapter = probed.adapter;
    // Closing the adapter also fails what it waits for (a reset, a command), not only the port.
    this.#abortAttempt = () => adapter.close();
    adapter.onEvent((e) => this.#onEvent(adapter, e));
    transport.onClose(() => this.#lost(adapter));
    try {
      const store = this.#deps.store;
      const stored = store.network();
      // Known addresses first: a restore writes them with the devices' link keys.
      for (const d of store.devices()) adapter.addresses.set(d.ieee, d.nwk);
      const r = await adapter.start(stored, () => randomNetwork(this.#o.channel), path, {
        restoreWritten: async (outcome) => {
          restore.record = writtenRecord(outcome, restore.record);
          await store.setRestoreRecord(restore.record);
        },
      });
      // Kept: a new network, a restored one (its one-time security state is dropped now that the stick
      // has it), or a frame counter that moved on.
      if (r.commissioned || !stored || stored.security || stored.frameCounter !== r.network.frameCounter)
        await store.setNetwork(r.network);
      // After the network (a crash in between leaves a record that is not done, finished next time).
      const done = restore.record ? finalRecord(restore.record, r) : null;
      if (done) await store.setRestoreRecord(done);
      restore.record = null;
      if (r.commissioned)
        this.#log.info({ panId: r.network.panId, channel: r.network.channel }, 'network formed on the stick');
      this.#coordinatorIeee = r.ieee;
      this.#detail = {
        path,
        coordinator: r.ieee,
        stick: probed.kind,
        detected: probed.how,
        firmware: r.version,
        channel: r.network.channel,
        panId: r.network.panId,
      };
      this.#log.info(
        { path, stick: probed.kind, detected: probed.how, firmware: r.version },
        'zigbee stick found',
      );
      if (done) this.#reportRestore(done.outcome);
    } catch (err) {
      await adapter.close().catch(() => {});
      throw err;
    }
    if (this.#stopped) {
      await adapter.close();
      return;
    }
    this.#adapter = adapter;
    this.#zcl = new ZclClient(adapter);
    this.#setConnected(true);
    // Devices known without their descriptors (imported from another controller): read them now.
    for (const d of this.#deps.store.devices())
      if (!d.interviewed) void this.#announced(adapter, d.ieee, this.#adapter.addresses.get(d.ieee) ?? d.nwk);
    this.#liveness = setInterval(() => {
      adapter.alive(2000).catch(() => this.#lost(adapter));
    }, this.#o.livenessMs);
  }

  #setConnected(connected: boolean): void {
    if (this.#status.connected === connected) return;
    this.#status = { connected, since: new Date().toISOString(), detail: this.#detail };
    this.#sink.reportConnection({ connected, detail: this.#detail });
  }

  #lost(adapter: RadioAdapter): void {
    if (this.#adapter !== adapter) return;
    this.#log.warn('zigbee stick lost');
    this.#adapter = null;
    this.#zcl?.close();
    this.#zcl = null;
    if (this.#liveness) clearInterval(this.#liveness);
    this.#liveness = null;
    void adapter.close().catch(() => {});
    this.#setConnected(false);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnect) return;
    this.#reconnect = setTimeout(() => {
      this.#reconnect = null;
      if (this.#stopped || this.#adapter) return;
      this.#connect().catch((err: unknown) => {
        this.#log.debug({ err }, 'zigbee stick still unavailable');
        this.#scheduleReconnect();
      });
    }, this.#o.reconnectMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    // A start attempt in flight would go on talking to the stick after the stop (until its own timeouts).
    await this.#abortAttempt?.().catch(() => {});
    if (this.#reconnect) clearTimeout(this.#reconnect);
    this.#reconnect = null;
    if (this.#liveness) clearInterval(this.#liveness);
    this.#liveness = null;
    for (const t of this.#pending.values()) clearTimeout(t);
    this.#pending.clear();
    for (const t of this.#noMotion.values()) clearTimeout(t);
    this.#noMotion.clear();
    const adapter = this.#adapter;
    this.#adapter = null;
    this.#zcl?.close();
    this.#zcl = null;
    await adapter?.close().catch(() => {});
    this.#setConnected(false);
  }

  connection(): ConnectionStatus {
    return this.#status;
  }

  async listDevices(): Promise<DeviceInfo[]> {
    return this.#deps.store.devices().flatMap((d) => {
      const info = d.interviewed ? deviceInfo(d) : null;
      return info ? [info] : [];
    });
  }

  /** Opens the network for joining for about `durationMs` and returns the devices interviewed meanwhile. */
  async discover({ durationMs }: { durationMs: number }): Promise<DeviceInfo[]> {
    await this.permitJoin(Math.ceil(durationMs / 1000));
    const found: DeviceInfo[] = [];
    this.#found = found;
    await new Promise((resolve) => setTimeout(resolve, durationMs));
    if (this.#found === found) this.#found = null;
    return found;
  }

  /** Opens joining for `seconds` (0 closes it) without waiting. */
  async permitJoin(seconds: number): Promise<void> {
    await this.#need().permitJoin(seconds);
    this.#joinUntil = seconds > 0 ? Date.now() + Math.min(254, Math.round(seconds)) * 1000 : 0;
  }

  /**
   * Lets one device join by its install code (already checked by `parseInstallCode`): the link key derived
   * from it goes to the trust centre for that IEEE address, then joining opens for `seconds`.
   */
  async addInstallCode(ieee: string, code: Buffer, seconds: number): Promise<void> {
    await this.#need().addInstallCodeKey(ieee, installCodeKey(code));
    await this.permitJoin(seconds);
  }

  /** Seconds of joining left (the countdown of the admin API and CLI). */
  permitJoinRemaining(): number {
    return Math.max(0, Math.ceil((this.#joinUntil - Date.now()) / 1000));
  }

  /**
   * The stick's security state for a backup (null when not connected or not a covered Z-Stack), with the
   * coordinator's IEEE address, which a replacement takes on restore.
   */
  async stickSecurity(): Promise<StickSecurity | null> {
    const n = this.#deps.store.network();
    if (!this.#adapter || !n) return null;
    const sec = await this.#adapter.readSecurity(n.extendedPanId);
    return sec && this.#coordinatorIeee ? { ...sec, coordinatorIeee: this.#coordinatorIeee } : sec;
  }

  /** A restore's outcome (the status reads it from the store): a log line, a warning for what the stick could not take. */
  #reportRestore(outcome: RestoreOutcome): void {
    if (outcome.ieee?.taken)
      this.#log.info(
        { ieee: outcome.ieee.wanted, via: outcome.ieee.via, note: outcome.ieee.note },
        'the stick took the old coordinator IEEE address',
      );
    else if (outcome.ieee)
      this.#log.warn(
        { ieee: outcome.ieee.wanted, reason: outcome.ieee.reason, note: outcome.ieee.note },
        'the old coordinator IEEE address could not be restored',
      );
    if (outcome.hashedTclk?.reason)
      this.#log.warn({ reason: outcome.hashedTclk.reason }, 'hashed trust-centre link key not used');
    if (outcome.linkKeys?.reason)
      this.#log.warn({ reason: outcome.linkKeys.reason }, 'device link keys could not be restored');
    this.#deps.observer?.restored?.(outcome);
  }

  /** What the admin status shows; never the network key. */
  status(): Record<string, unknown> {
    const n = this.#deps.store.network();
    const r = this.#deps.store.restoreRecord();
    return {
      connected: this.#status.connected,
      since: this.#status.since,
      ...this.#detail,
      // The last restore, kept until the next one: `state` says whether the stick has started with it.
      ...(r
        ? {
            restore: {
              ...r.outcome,
              state: r.state,
              at: r.at,
              ...(r.lastError ? { lastError: r.lastError } : {}),
            },
          }
        : {}),
      ...(n ? { extendedPanId: n.extendedPanId } : {}),
      devices: this.#deps.store.devices().length,
      permitJoinSeconds: this.permitJoinRemaining(),
      ...(this.#adapter ? { traffic: { ...this.#adapter.stats } } : {}),
    };
  }

  #need(): RadioAdapter {
    if (this.#stopped || !this.#adapter) throw new NotConnectedError();
    return this.#adapter;
  }

  #device(protocolid: string): { rec: ZigbeeDeviceRecord; dest: Destination; inClusters: number[] } {
    const id = parseProtocolId(protocolid);
    const rec = id ? this.#deps.store.devices().find((d) => d.ieee === id.ieee) : undefined;
    const ep = rec?.endpoints.find((e) => e.id === id?.endpoint);
    if (!id || !rec || !ep) throw new Error(`unknown Zigbee device ${protocolid}`);
    return { rec, dest: { ieee: rec.ieee, nwk: rec.nwk, endpoint: ep.id }, inClusters: ep.inClusters };
  }

  async setState(protocolid: string, cmd: LightCommand, light?: LightTarget): Promise<void> {
    this.#need();
    const { dest, inClusters } = this.#device(protocolid);
    const zcl = this.#zcl as ZclClient;
    const dims = inClusters.includes(Cluster.LEVEL) && light?.type !== 'binary';
    const out: ClusterCommand[] = [];
    if (!cmd.on || cmd.bri <= 0) out.push(onOff(false));
    else {
      out.push(dims ? moveToLevelWithOnOff(briToLevel254(cmd.bri), cmd.transition) : onOff(true));
      // colormode decides: a `ct` command also carries its xy, and must still reach the bulb as Move to
      // Colour Temperature (ZCL r7 §5.2.2.3.14), or it stays in xy mode at its old temperature.
      const colour = inClusters.includes(Cluster.COLOR) ? commandColour(cmd) : null;
      if (colour && 'ct' in colour) out.push(moveToColorTemp(colour.ct, cmd.transition));
      else if (colour) {
        const [x, y] = xyToZcl(colour.xy);
        out.push(moveToXy(x, y, cmd.transition));
      }
    }
    for (const c of out) await zcl.command(dest, c);
  }

  /** A Hearth group's command as one Zigbee groupcast (docs/zigbee.md#groups). */
  async setGroupState(group: GroupTarget, cmd: LightCommand): Promise<void> {
    this.#need();
    await setGroupState(
      {
        store: this.#deps.store,
        zcl: this.#zcl as ZclClient,
        member: (p) => {
          try {
            const { dest, inClusters } = this.#device(p);
            return { dest, inClusters };
          } catch {
            return null;
          }
        },
        single: (p, c, light) => this.setState(p, c, light),
      },
      group,
      cmd,
    );
  }

  async readState(protocolid: string): Promise<LightState | null> {
    this.#need();
    const { rec, dest, inClusters } = this.#device(protocolid);
    const zcl = this.#zcl as ZclClient;
    const a = this.#attrsOf(rec.ieee);
    applyRecords(a, Cluster.ON_OFF, await zcl.read(dest, Cluster.ON_OFF, [Attr.ON_OFF]));
    if (inClusters.includes(Cluster.LEVEL))
      applyRecords(a, Cluster.LEVEL, await zcl.read(dest, Cluster.LEVEL, [Attr.LEVEL_CURRENT]));
    if (inClusters.includes(Cluster.COLOR))
      applyRecords(
        a,
        Cluster.COLOR,
        await zcl.read(dest, Cluster.COLOR, [Attr.COLOR_TEMP, Attr.COLOR_X, Attr.COLOR_Y, Attr.COLOR_MODE]),
      );
    return toLightState(a);
  }

  #attrsOf(ieee: string): Attrs {
    let a = this.#attrs.get(ieee);
    if (!a) {
      a = {};
      this.#attrs.set(ieee, a);
    }
    return a;
  }

  #onEvent(adapter: RadioAdapter, e: RadioEvent): void {
    switch (e.type) {
      case 'reset':
        // During start-up a reset is the adapter's own doing (after a restore); it handles it.
        if (this.#adapter !== adapter) return;
        // The coordinator restarted: it forgot its endpoint and must start its network again.
        this.#log.warn({ reason: e.reason }, 'zigbee coordinator reset');
        adapter.resume().catch((err: unknown) => {
          this.#log.error({ err }, 'zigbee coordinator did not come back after a reset');
          this.#lost(adapter);
        });
        return;
      case 'announce':
        void this.#announced(adapter, e.ieee, e.nwk);
        return;
      case 'left':
        void this.#left(e.ieee);
        return;
      case 'message':
        this.#incoming(e);
        return;
    }
  }

  async #announced(adapter: RadioAdapter, ieee: string, nwk: number): Promise<void> {
    const store = this.#deps.store;
    const known = store.devices().find((d) => d.ieee === ieee);
    adapter.addresses.set(ieee, nwk);
    if (known?.interviewed) {
      if (known.nwk !== nwk) await store.putDevice({ ...known, nwk });
      return;
    }
    if (this.#interviewing.has(ieee) || !this.#zcl) return;
    this.#interviewing.add(ieee);
    let zoneId = -1;
    try {
      zoneId = freeZoneId(store.devices(), this.#zoneIds);
      this.#zoneIds.add(zoneId);
      const rec = await interview(adapter, this.#zcl, this.#coordinatorIeee, ieee, nwk, zoneId);
      await store.putDevice(rec);
      const info = deviceInfo(rec);
      if (!info) return;
      this.#log.info({ device: info.protocolid, model: rec.model }, 'zigbee device joined');
      this.#found?.push(info);
      this.#sink.reportDevices([info]);
      this.#deps.observer?.joined?.(info);
    } catch (err) {
      this.#log.warn({ err, ieee }, 'zigbee interview failed; the device can join again');
    } finally {
      this.#interviewing.delete(ieee);
      this.#zoneIds.delete(zoneId);
    }
  }

  /**
   * Removes a device: asks it to leave the network (ZDO Mgmt_Leave_req, rejoin not allowed) and forgets
   * it whether or not it answered (a dead device must be removable too). Null for an unknown device.
   */
  async removeDevice(ieee: string): Promise<{ confirmed: boolean } | null> {
    const adapter = this.#need();
    const rec = this.#deps.store.devices().find((d) => d.ieee === ieee);
    if (!rec) return null;
    const nwk = adapter.nwkOf({ ieee, nwk: rec.nwk, endpoint: 0 });
    const confirmed = await adapter.leave(nwk, ieee, adapter.answerMs).then(
      () => true,
      () => false,
    );
    await this.#left(ieee);
    return { confirmed };
  }

  async #left(ieee: string): Promise<void> {
    const rec = this.#deps.store.devices().find((d) => d.ieee === ieee);
    if (!rec) return;
    await this.#deps.store.removeDevice(ieee);
    // A device that joins again comes back with empty group tables: it must be added to its groups anew.
    for (const g of this.#deps.store.groups()) {
      const members = g.members.filter((p) => parseProtocolId(p)?.ieee !== ieee);
      if (members.length !== g.members.length) await this.#deps.store.putGroup({ ...g, members });
    }
    this.#attrs.delete(ieee);
    this.#memory.delete(ieee);
    clearTimeout(this.#noMotion.get(ieee));
    this.#noMotion.delete(ieee);
    this.#adapter?.addresses.delete(ieee);
    const ep = mainEndpoint(rec);
    this.#log.info({ ieee }, 'zigbee device left the network');
    if (ep) this.#deps.observer?.left?.(protocolIdOf(ieee, ep.id));
  }

  #incoming(f: IncomingFrame): void {
    const { nwk, cluster } = f;
    let frame: ZclFrame;
    try {
      frame = decodeZcl(f.data);
    } catch {
      return;
    }
    if (this.#zcl?.answer(nwk, cluster, frame)) return;
    const rec = this.#byNwk(nwk);
    if (!rec) return;
    const ep = mainEndpoint(rec);
    const srcEndpoint = f.srcEndpoint as number;
    const protocolid = protocolIdOf(rec.ieee, ep?.id ?? srcEndpoint);
    const match = definitionOf(rec);
    const ctx = { endpoint: srcEndpoint, memory: this.#memoryOf(rec.ieee) };
    let out: Output = {};
    try {
      if (frame.kind === 0) {
        const records =
          frame.command === Global.REPORT
            ? decodeReport(frame.payload)
            : frame.command === Global.READ_RSP
              ? decodeReadRsp(frame.payload)
              : [];
        out =
          match?.definition.attributes?.(cluster, records, ctx) ??
          this.#attributes(rec, protocolid, cluster, records);
      } else if (cluster === Cluster.IAS_ZONE) out = this.#ias(rec, srcEndpoint, frame);
      else
        out = match?.definition.commands?.(cluster, frame, ctx) ?? this.#command(protocolid, cluster, frame);
    } catch (err) {
      this.#log.debug({ err, ieee: rec.ieee }, 'undecodable ZCL frame');
    }
    if (
      !out.events?.length &&
      !hasReadings(out.readings) &&
      !(frame.kind === 0 && LIGHT_CLUSTERS.has(cluster))
    )
      // What "adding a device" starts from (docs/zigbee.md#adding-a-device): frames nothing turned into news.
      this.#log.debug(
        {
          ieee: rec.ieee,
          model: rec.model,
          endpoint: srcEndpoint,
          cluster,
          command: frame.command,
          kind: frame.kind,
          manufacturerCode: frame.manufacturerCode,
          payload: frame.payload.toString('hex'),
        },
        'zigbee frame not turned into an event or reading',
      );
    // Readings first: an action's condition on this frame's event sees this frame's readings.
    const readings: SensorReadings = { ...out.readings };
    if (typeof f.linkQuality === 'number') readings.linkquality = f.linkQuality;
    if (hasReadings(readings)) this.#sink.reportReadings?.(protocolid, readings);
    for (const e of out.events ?? []) this.#event(rec.ieee, protocolid, e, match);
  }

  #memoryOf(ieee: string): Record<string, unknown> {
    let m = this.#memory.get(ieee);
    if (!m) {
      m = {};
      this.#memory.set(ieee, m);
    }
    return m;
  }

  /** A sensor event; a `motion` of a sensor that never says `no_motion` (re)starts Hearth's own timer. */
  #event(ieee: string, protocolid: string, event: string, match: Match | null): void {
    this.#sink.reportSensorEvent(protocolid, event);
    const seconds = this.#o.occupancyTimeoutSeconds ?? match?.definition.noMotionAfterSeconds;
    if (event !== 'motion' || !match?.definition.noMotionAfterSeconds || seconds === undefined) return;
    clearTimeout(this.#noMotion.get(ieee));
    this.#noMotion.set(
      ieee,
      setTimeout(() => {
        this.#noMotion.delete(ieee);
        this.#sink.reportSensorEvent(protocolid, 'no_motion');
      }, seconds * 1000),
    );
  }

  #byNwk(nwk: number): ZigbeeDeviceRecord | undefined {
    const adapter = this.#adapter;
    return this.#deps.store.devices().find((d) => (adapter?.addresses.get(d.ieee) ?? d.nwk) === nwk);
  }

  /** Generic attribute reports: occupancy, measurements, and a light's state. */
  #attributes(rec: ZigbeeDeviceRecord, protocolid: string, cluster: number, records: AttrRecord[]): Output {
    if (cluster === Cluster.OCCUPANCY) {
      const occ = records.find((r) => r.attr === Attr.OCCUPANCY);
      return occ ? { events: [Number(occ.value) & 1 ? 'motion' : 'no_motion'] } : {};
    }
    const readings = standardReadings(cluster, records);
    if (hasReadings(readings)) return { readings };
    if (applyRecords(this.#attrsOf(rec.ieee), cluster, records)) this.#schedule(rec.ieee, protocolid);
    return {};
  }

  #schedule(ieee: string, protocolid: string): void {
    if (this.#pending.has(ieee)) return;
    this.#pending.set(
      ieee,
      setTimeout(() => {
        this.#pending.delete(ieee);
        const s = toLightState(this.#attrsOf(ieee));
        if (s) this.#sink.reportState(protocolid, s);
      }, this.#o.coalesceMs),
    );
  }

  /** IAS zone: answer an enroll request with the device's zone id; status changes become events. */
  #ias(rec: ZigbeeDeviceRecord, endpoint: number, frame: ZclFrame): Output {
    if (!frame.fromServer) return {};
    if (frame.command === IasZoneCmd.ENROLL_REQUEST) {
      const zoneId = rec.ias?.zoneId ?? freeZoneId(this.#deps.store.devices());
      const dest = { ieee: rec.ieee, nwk: rec.nwk, endpoint };
      this.#zcl?.command(dest, enrollResponse(zoneId)).catch((err: unknown) => {
        this.#log.warn({ err, ieee: rec.ieee }, 'zigbee IAS enroll response not delivered');
      });
      return {};
    }
    if (frame.command !== IasZoneCmd.STATUS_CHANGE || frame.payload.length < 2) return {};
    const status = frame.payload.readUInt16LE(0);
    const events = statusEvents(rec.ias?.zoneType ?? 0, status, this.#zoneStatus.get(rec.ieee));
    this.#zoneStatus.set(rec.ieee, status);
    return { events };
  }

  /** Generic remote commands: standard On/Off, Level and Scenes, and the vendor frames known by cluster. */
  #command(protocolid: string, cluster: number, frame: ZclFrame): Output {
    if (frame.manufacturerCode !== undefined || cluster === HUE_BUTTON_CLUSTER) {
      let held = this.#held.get(protocolid);
      if (!held) {
        held = {};
        this.#held.set(protocolid, held);
      }
      const event = vendorEvent(cluster, frame, held);
      return event ? { events: [event] } : {};
    }
    const event = remoteEvent(cluster, frame.command, frame.payload);
    return event ? { events: [event] } : {};
  }
}

export function createZigbeeDriverFactory(deps: ZigbeeDriverDeps): DriverFactory {
  return (init) => new ZigbeeDriver(init, deps);
}
