/**
 * Desired vs reported light state (docs/lighting.md#desired-and-reported-state). A command is normalised, recorded as desired and
 * handed to the light's driver through a per-light latest-wins queue. What the API returns and pushes
 * is the *reported* state; a device that does not report within `reconcileMs` is read back when the
 * driver can read, otherwise the desired state is assumed (README: "reconciliation").
 */
import type { Logger } from 'pino';
import { type DocStore, HttpError } from '../../core/sdk.ts';
import {
  ForeignDeviceError,
  type LightCommand,
  type LightLevel,
  type LightState,
} from '../../drivers/lighting/index.ts';
import type { Catalog } from './catalog.ts';
import type { ColourCommand } from './domain/colour.ts';
import { LateError, withDeadline } from './domain/deadline.ts';
import { DueList } from './domain/due-list.ts';
import { LatestWins } from './domain/latest-wins.ts';
import { colourOf, normalizeLevel, OFF, sameLevel, withColour } from './domain/level.ts';
import type { DriverHost, DriverInstance } from './drivers-host.ts';
import type { Live } from './live.ts';
import type { LevelEntry, LightRecord, LightView, StateDoc } from './types.ts';

export interface LightControlDeps {
  catalog: Catalog;
  state: DocStore<StateDoc>;
  drivers: DriverHost;
  live: Live;
  reconcileMs: number;
  /** Bound on a driver's setState/readState/discover (config `commandTimeoutMs`). */
  commandTimeoutMs: number;
  log: Logger;
}

/** How long an answer that binds a light waits for its device's state; a slower read still lands (pushed). */
const BIND_WAIT_MS = 1000;

export class LightControl {
  readonly #d: LightControlDeps;
  /** Lights commanded and not heard from since: reconciled once `reconcileMs` has passed. */
  readonly #silent: DueList<string, DriverInstance>;
  /** Reports seen per light, so a command answered before it was fully handed over is not reconciled. */
  readonly #reports = new Map<string, number>();
  readonly #queue: LatestWins<string, { light: LightRecord; level: LightCommand }>;
  /** Called with the light id when a command reaches a driver (the benchmark measures this). */
  onHanded: ((lightId: string) => void) | null = null;
  /** Command latencies by driver type: handed to the driver, and confirmed by the device's report. */
  onLatency: ((stage: 'handed' | 'confirmed', driverType: string, seconds: number) => void) | null = null;
  /** When each light's last command was handed, until its device reports (or reconciliation gives up). */
  readonly #handedAt = new Map<string, { at: number; type: string }>();
  /** Told after every confirmed change of a light's level (the bus event `lighting.light.state`). */
  onConfirmed: ((light: LightRecord, level: LightState) => void) | null = null;

  constructor(deps: LightControlDeps) {
    this.#d = deps;
    this.#silent = new DueList(deps.reconcileMs, (id, inst) => void this.#reconcile(id, inst));
    // A command that replaces a queued one keeps the colour the replaced one asked for (a brightness
    // slider dragged right after a colour pick must not drop the colour).
    this.#queue = new LatestWins(
      (id, cmd) => this.#send(id, cmd.light, cmd.level),
      (older, newer) => ({ light: newer.light, level: { ...colourOf(older.level), ...newer.level } }),
    );
  }

  entry(lightId: string): LevelEntry {
    const levels = this.#d.state.data.levels;
    return (
      (Object.hasOwn(levels, lightId) ? levels[lightId] : undefined) ?? {
        reported: OFF,
        desired: OFF,
        lastOnBri: 0,
      }
    );
  }

  /**
   * spec Light fields: the record, its confirmed `on`/`bri`, and the protocol id as `<vendor>id`. A light
   * with colour adds its capabilities and confirmed colour after them, a plug `plug: true` before them; a
   * light with neither keeps the spec's shape.
   */
  view(light: LightRecord): LightView {
    const { protocolid, new: isNew, capabilities, plug, ...rest } = light;
    const reported = this.entry(light._id).reported;
    const { on, bri } = normalizeLevel(light.type, reported);
    // spec: `subdef` is a string; a light without a sender id answers "" (stored as null), in its place.
    const view: LightView = {
      ...rest,
      subdef: rest.subdef ?? '',
      [`${light.vendor}id`]: protocolid,
      on,
      bri,
      new: isNew === true,
    };
    if (plug) view.plug = true;
    if (!capabilities) return view;
    view.capabilities = capabilities;
    return Object.assign(view, colourOf(reported));
  }

  /**
   * A light whose `type` changed (PUT /light dimmable → binary) keeps only levels its new type allows:
   * spec "for binary lights only 0 or 255".
   */
  retyped(light: LightRecord): void {
    const e = this.#d.state.data.levels[light._id];
    if (!e) return;
    const reported = normalizeLevel(light.type, e.reported);
    const desired = normalizeLevel(light.type, e.desired);
    if (sameLevel(reported, e.reported) && sameLevel(desired, e.desired)) return;
    this.#d.state.update((d) => {
      const stored = d.levels[light._id];
      if (stored) Object.assign(stored, { reported, desired });
    });
  }

  /**
   * Resolves once the command (or a later one for the same light) is handed to the driver. `extra` is the
   * checked colour and transition of the command (domain/colour.ts); without it the light keeps its colour.
   */
  set(
    light: LightRecord,
    requested: LightLevel,
    extra?: ColourCommand,
  ): { level: LightState; handed: Promise<void> } {
    const colour = light.capabilities ? extra?.colour : undefined;
    const previous = this.entry(light._id).desired;
    const level = withColour(normalizeLevel(light.type, requested), previous, colour);
    const inst = this.#d.drivers.driverFor(light);
    if (!inst) {
      const err = new HttpError(
        503,
        'no_driver',
        `no ${light.vendor} driver is running for light ${light._id}`,
      );
      return { level, handed: Promise.reject(err) };
    }
    this.#setDesired(light._id, level);
    const command: LightCommand = normalizeLevel(light.type, requested);
    if (colour) Object.assign(command, colourOf(colour));
    if (extra?.transition !== undefined) command.transition = extra.transition;
    const handed = this.#queue.submit(light._id, { light, level: command });
    // A refused command leaves nothing behind: the desired level goes back unless a newer one replaced it.
    handed.catch(() => {
      if (sameLevel(this.entry(light._id).desired, level)) this.#setDesired(light._id, previous);
    });
    return { level, handed };
  }

  #setDesired(lightId: string, level: LightState): void {
    this.#d.state.update((d) => {
      const e = d.levels[lightId];
      if (e) e.desired = level;
      else d.levels[lightId] = { reported: OFF, desired: level, lastOnBri: 0 };
    });
  }

  /** A running driver instance by its id. */
  instance(id: string): DriverInstance | undefined {
    return this.#d.drivers.get(id);
  }

  /** A driver call bounded by the command timeout, like every command handed to a driver. */
  withinDeadline<T>(call: Promise<T>): Promise<T> {
    return withDeadline(call, this.#d.commandTimeoutMs);
  }

  /** The light's driver instance when it takes whole-group commands, else undefined. */
  groupDriver(light: LightRecord): DriverInstance | undefined {
    const inst = this.#d.drivers.driverFor(light);
    return inst?.driver.setGroupState ? inst : undefined;
  }

  /**
   * One command for several lights of one driver (docs/lighting.md#whole-group-commands): each light's
   * desired level is recorded as `set` does, the driver gets one `setGroupState`, and each light is then
   * confirmed by its own report or reconciled on its own.
   */
  setGroup(
    groupId: string,
    inst: DriverInstance,
    lights: LightRecord[],
    requested: LightLevel,
  ): { levels: LightState[]; handed: Promise<void> } {
    const before = lights.map((l) => this.entry(l._id).desired);
    const levels = lights.map((l, i) =>
      withColour(normalizeLevel(l.type, requested), before[i] as LightState, undefined),
    );
    lights.forEach((l, i) => {
      this.#setDesired(l._id, levels[i] as LightState);
    });
    const members = lights.map((l) => ({
      protocolid: l.protocolid,
      light: l.capabilities ? { type: l.type, capabilities: l.capabilities } : { type: l.type },
    }));
    const send = inst.driver.setGroupState;
    const handed = (async () => {
      if (!send) throw new HttpError(503, 'no_driver', `the ${inst.type} driver takes no group commands`);
      for (const l of lights) this.onHanded?.(l._id);
      const sentAt = performance.now();
      try {
        await withDeadline(
          send.call(inst.driver, { id: groupId, members }, { on: requested.on, bri: requested.bri }),
          this.#d.commandTimeoutMs,
        );
      } catch (err) {
        this.#d.log.warn({ err, group: groupId, driver: inst.id }, 'driver refused a group command');
        throw this.#refused(err, inst, `group ${groupId}`);
      }
      this.onLatency?.('handed', inst.type, (performance.now() - sentAt) / 1000);
      for (const l of lights) {
        this.#handedAt.set(l._id, { at: sentAt, type: inst.type });
        this.#arm(l._id, inst);
      }
    })();
    handed.catch(() => {
      lights.forEach((l, i) => {
        if (sameLevel(this.entry(l._id).desired, levels[i] as LightState))
          this.#setDesired(l._id, before[i] as LightState);
      });
    });
    return { levels, handed };
  }

  #refused(err: unknown, inst: DriverInstance, what: string): HttpError {
    if (err instanceof ForeignDeviceError)
      return new HttpError(409, 'foreign_device', `${what}: its ${inst.type} device belongs to another site`);
    if (err instanceof LateError)
      return new HttpError(
        504,
        'driver_timeout',
        `the ${inst.type} driver did not take the command to ${what} within ${err.ms} ms`,
      );
    return new HttpError(
      502,
      'driver_error',
      `the ${inst.type} driver could not send the command to ${what}`,
    );
  }

  async #send(lightId: string, light: LightRecord, level: LightCommand): Promise<void> {
    const inst = this.#d.drivers.driverFor(light);
    if (!inst)
      throw new HttpError(503, 'no_driver', `no ${light.vendor} driver is running for light ${lightId}`);
    this.onHanded?.(lightId);
    const reportsBefore = this.#reports.get(lightId) ?? 0;
    const sentAt = performance.now();
    try {
      await withDeadline(
        inst.driver.setState(
          light.protocolid,
          level,
          light.capabilities ? { type: light.type, capabilities: light.capabilities } : { type: light.type },
        ),
        this.#d.commandTimeoutMs,
      );
    } catch (err) {
      this.#d.log.warn({ err, light: lightId, driver: inst.id }, 'driver refused a command');
      if (err instanceof ForeignDeviceError)
        throw new HttpError(
          409,
          'foreign_device',
          `light ${lightId}: its ${light.vendor} device belongs to another site`,
        );
      if (err instanceof LateError)
        throw new HttpError(
          504,
          'driver_timeout',
          `the ${inst.type} driver did not take the command to light ${lightId} within ${err.ms} ms`,
        );
      throw new HttpError(
        502,
        'driver_error',
        `the ${inst.type} driver could not send the command to light ${lightId}`,
      );
    }
    this.onLatency?.('handed', inst.type, (performance.now() - sentAt) / 1000);
    // A device that already answered while the command was being handed needs no reconciliation.
    if ((this.#reports.get(lightId) ?? 0) === reportsBefore) {
      this.#handedAt.set(lightId, { at: sentAt, type: inst.type });
      this.#arm(lightId, inst);
    }
  }

  /** The light is reconciled `reconcileMs` from now unless its device reports first (no timer per command). */
  #arm(lightId: string, inst: DriverInstance): void {
    this.#silent.set(lightId, inst);
  }

  async #reconcile(lightId: string, inst: DriverInstance): Promise<void> {
    this.#handedAt.delete(lightId);
    const light = this.#d.catalog.data.lights.find((l) => l._id === lightId);
    if (!light) return;
    const reportsBefore = this.#reports.get(lightId) ?? 0;
    let level: LightState | null = null;
    try {
      level = await this.#read(inst, light.protocolid);
    } catch (err) {
      this.#d.log.warn({ err, light: lightId }, 'reading a silent light failed');
    }
    // The read waited for the device: a report or a new command since then is newer than its answer.
    if ((this.#reports.get(lightId) ?? 0) !== reportsBefore || this.#handedAt.has(lightId)) return;
    this.#d.log.debug({ light: lightId, read: level !== null }, 'reconciling a light that did not report');
    this.#confirm(light, level ?? this.entry(lightId).desired);
  }

  /** The device's level read through the driver (null when it cannot read), bounded in time. */
  async #read(inst: DriverInstance, protocolid: string): Promise<LightState | null> {
    if (!inst.driver.readState) return null;
    return withDeadline(inst.driver.readState(protocolid), this.#d.commandTimeoutMs);
  }

  /**
   * A light was just bound to its device (created, adopted, or moved to another device): the device's
   * state is read through its driver (contract: `readState`), so the light shows what the device shows
   * instead of off until its next report. Resolves once read, or after BIND_WAIT_MS; a slower read still
   * confirms and pushes `setLightState`. A report or command meanwhile is newer, and wins.
   */
  bound(light: LightRecord): Promise<void> {
    const inst = this.#d.drivers.driverFor(light);
    if (!inst?.driver.readState || !inst.status.connected) return Promise.resolve();
    const reportsBefore = this.#reports.get(light._id) ?? 0;
    const desiredBefore = this.entry(light._id).desired;
    const read = this.#read(inst, light.protocolid).then(
      (level) => {
        const now = this.#d.catalog.lightsWithProtocolId(light.protocolid).find((l) => l._id === light._id);
        if (!level || !now || !this.#d.drivers.serves(inst, now)) return;
        if ((this.#reports.get(light._id) ?? 0) !== reportsBefore) return;
        if (!sameLevel(this.entry(light._id).desired, desiredBefore)) return;
        this.#confirm(now, level);
      },
      (err: unknown) => this.#d.log.debug({ err, light: light._id }, 'reading a newly bound light failed'),
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, BIND_WAIT_MS);
      timer.unref();
    });
    return Promise.race([read, waited]).finally(() => clearTimeout(timer));
  }

  /**
   * Full resync after a driver (re)connects (docs/lighting.md#desired-and-reported-state: push channels die silently, so what happened
   * meanwhile is read back rather than trusted). Drivers that cannot read are left alone.
   */
  async resync(inst: DriverInstance): Promise<void> {
    if (!inst.driver.readState) return;
    for (const light of this.#d.catalog.data.lights) {
      if (!this.#d.drivers.serves(inst, light)) continue;
      const reportsBefore = this.#reports.get(light._id) ?? 0;
      const desiredBefore = this.entry(light._id).desired;
      try {
        const level = await this.#read(inst, light.protocolid);
        // As for a bind read: a report or a command while the read waited is newer than its answer.
        if (!level || (this.#reports.get(light._id) ?? 0) !== reportsBefore) continue;
        if (!sameLevel(this.entry(light._id).desired, desiredBefore)) continue;
        this.#confirm(light, level);
      } catch (err) {
        this.#d.log.warn({ err, light: light._id, driver: inst.id }, 'resync read failed');
      }
    }
  }

  /** A device report from a driver: applies to every light that driver serves with that protocol id. */
  report(inst: DriverInstance, protocolid: string, level: LightState): void {
    for (const light of this.#d.catalog.lightsWithProtocolId(protocolid)) {
      if (!this.#d.drivers.serves(inst, light)) continue;
      this.#reports.set(light._id, (this.#reports.get(light._id) ?? 0) + 1);
      this.#silent.delete(light._id);
      const handed = this.#handedAt.get(light._id);
      if (handed) {
        this.#handedAt.delete(light._id);
        this.onLatency?.('confirmed', handed.type, (performance.now() - handed.at) / 1000);
      }
      this.#confirm(light, level);
    }
  }

  /**
   * A confirmed state. Colour fields count only for a light with colour, and a report without them keeps
   * the colour already known (a device may report its power alone).
   */
  #confirm(light: LightRecord, raw: LightState): void {
    const known = this.entry(light._id).reported;
    const level = light.capabilities
      ? withColour(normalizeLevel(light.type, raw), known, colourOf(raw))
      : normalizeLevel(light.type, raw);
    if (sameLevel(this.entry(light._id).reported, level) && this.#d.state.data.levels[light._id]) return;
    this.#d.state.update((d) => {
      const e = d.levels[light._id] ?? { reported: OFF, desired: level, lastOnBri: 0 };
      e.reported = level;
      if (level.on) e.lastOnBri = level.bri;
      d.levels[light._id] = e;
    });
    if (this.#d.live.count(light.siteid) > 0)
      this.#d.live.publish(light.siteid, 'setLightState', this.view(light));
    this.onConfirmed?.(light, level);
  }

  forget(lightId: string): void {
    this.#reports.delete(lightId);
    this.#handedAt.delete(lightId);
    this.#silent.delete(lightId);
    this.#d.state.update((d) => {
      delete d.levels[lightId];
    });
  }

  /** Drops levels of lights that no longer exist (after a site is deleted). */
  pruneLevels(): void {
    const live = new Set(this.#d.catalog.data.lights.map((l) => l._id));
    const gone = Object.keys(this.#d.state.data.levels).filter((id) => !live.has(id));
    for (const id of gone) this.forget(id);
  }

  stop(): void {
    this.#silent.clear();
  }
}
