/**
 * The schedules of every site: stored in `lighting.schedules.json` (changes committed before the API
 * answers; a run is recorded right after it started), run by the Scheduler, and their actions carried out
 * through the same light control as the site API.
 */
import type { Logger } from 'pino';
import { type DocStore, HttpError } from '../../../core/sdk.ts';
import type { Catalog } from '../catalog.ts';
import { missing } from '../catalog.ts';
import { newId } from '../domain/ids.ts';
import type { LightControl } from '../light-control.ts';
import type { SiteActions } from '../site-actions.ts';
import type { ScheduleFields } from './bodies.ts';
import type { Clock } from './clock.ts';
import { Scheduler } from './scheduler.ts';
import { type Place, WEEKDAYS } from './slots.ts';
import type { ScheduleAction, ScheduleRecord, SchedulesDoc } from './types.ts';

export interface SchedulesDeps {
  doc: DocStore<SchedulesDoc>;
  catalog: Catalog;
  control: LightControl;
  actions: SiteActions;
  log: Logger;
  clock: Clock;
  catchUpMs: number;
  /** Told after every run (the live push `scheduleRan`). */
  onRun?: (s: ScheduleRecord, failed: number) => void;
}

export const defaultSchedulesDoc = (): SchedulesDoc => ({
  schedules: [],
  locations: {},
  handled: {},
  lastrun: {},
});

const own = <T>(o: Record<string, T>, k: string): T | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);

export class Schedules {
  readonly #d: SchedulesDeps;
  #scheduler: Scheduler;
  #clock: Clock;

  constructor(deps: SchedulesDeps) {
    this.#d = deps;
    this.#clock = deps.clock;
    this.#scheduler = this.#build();
  }

  #build(): Scheduler {
    const { doc } = this.#d;
    return new Scheduler({
      clock: this.#clock,
      catchUpMs: this.#d.catchUpMs,
      schedules: () => doc.data.schedules,
      placeOf: (siteId) => this.location(siteId),
      handled: (id) => own(doc.data.handled, id),
      setHandled: (id, at) =>
        doc.update((d) => {
          d.handled[id] = at;
        }),
      run: (s, slot) => void this.#run(s, slot),
    });
  }

  start(): void {
    this.#scheduler.start();
  }

  stop(): void {
    this.#scheduler.stop();
  }

  /** Replaces the clock (tests and simulations drive time by hand). */
  useClock(clock: Clock): void {
    this.#scheduler.stop();
    this.#clock = clock;
    this.#scheduler = this.#build();
    this.#scheduler.start();
  }

  list(siteId: string): ScheduleRecord[] {
    return this.#d.doc.data.schedules.filter((s) => s.siteid === siteId);
  }

  get(siteId: string, id: unknown): ScheduleRecord {
    const s = this.#d.doc.data.schedules.find((x) => x._id === id && x.siteid === siteId);
    if (!s) throw missing('schedule', String(id));
    return s;
  }

  view(s: ScheduleRecord) {
    const next = this.#scheduler.next(s);
    return {
      ...s,
      next: next === null ? null : new Date(next).toISOString(),
      lastrun: own(this.#d.doc.data.lastrun, s._id) ?? null,
    };
  }

  location(siteId: string): Place | null {
    return own(this.#d.doc.data.locations, siteId) ?? null;
  }

  async setLocation(siteId: string, place: Place): Promise<void> {
    await this.#d.doc.commit((d) => {
      d.locations[siteId] = place;
    });
    this.#scheduler.wake();
  }

  #check(siteId: string, s: Pick<ScheduleRecord, 'sun' | 'action'>): void {
    if (s.sun && !this.location(siteId)) {
      throw new HttpError(409, 'conflict', 'set the site location first (PUT /location)');
    }
    const a = s.action;
    if (a.type === 'scene') this.#d.catalog.scene(siteId, a._id);
    else if (a.type === 'group') this.#d.catalog.group(siteId, a._id);
    else this.#d.catalog.light(siteId, a._id);
  }

  async add(siteId: string, f: ScheduleFields): Promise<ScheduleRecord> {
    const record: ScheduleRecord = {
      _id: newId(),
      siteid: siteId,
      name: f.name!,
      enabled: f.enabled ?? true,
      ...(f.at ? { at: f.at } : { sun: f.sun! }),
      days: f.days ?? [...WEEKDAYS],
      action: f.action as ScheduleAction,
    };
    this.#check(siteId, record);
    const now = this.#clock.now();
    await this.#d.doc.commit((d) => {
      d.schedules.push(record);
      d.handled[record._id] = now;
    });
    this.#scheduler.wake();
    return record;
  }

  async modify(siteId: string, id: string, f: ScheduleFields): Promise<ScheduleRecord> {
    const current = this.get(siteId, id);
    const next: ScheduleRecord = { ...current, ...f };
    if (f.at) delete next.sun;
    if (f.sun) delete next.at;
    this.#check(siteId, next);
    const now = this.#clock.now();
    await this.#d.doc.commit((d) => {
      const at = d.schedules.findIndex((s) => s._id === id);
      d.schedules[at] = next;
      // A changed time or a schedule switched back on starts from now: no catch-up for the past.
      d.handled[id] = Math.max(now, own(d.handled, id) ?? now);
    });
    this.#scheduler.wake();
    return next;
  }

  async remove(siteId: string, id: string): Promise<void> {
    this.get(siteId, id);
    await this.#d.doc.commit((d) => {
      d.schedules = d.schedules.filter((s) => s._id !== id);
      delete d.handled[id];
      delete d.lastrun[id];
    });
    this.#scheduler.wake();
  }

  /** Drops schedules whose scene, group or light is gone (as sensor actions are dropped). */
  async pruneTargets(siteId: string): Promise<void> {
    const gone = this.list(siteId).filter((s) => {
      try {
        this.#check(siteId, { action: s.action });
        return false;
      } catch {
        return true;
      }
    });
    if (gone.length === 0) return;
    const ids = new Set(gone.map((s) => s._id));
    await this.#d.doc.commit((d) => {
      d.schedules = d.schedules.filter((s) => !ids.has(s._id));
      for (const id of ids) {
        delete d.handled[id];
        delete d.lastrun[id];
      }
    });
  }

  async forgetSite(siteId: string): Promise<void> {
    await this.#d.doc.commit((d) => {
      d.schedules = d.schedules.filter((s) => s.siteid !== siteId);
      delete d.locations[siteId];
    });
  }

  async #run(s: ScheduleRecord, slot: number): Promise<void> {
    const { catalog, control, actions, log } = this.#d;
    let failed = 0;
    try {
      const a = s.action;
      if (a.type === 'scene') {
        failed = (await actions.applyScene(s.siteid, catalog.scene(s.siteid, a._id))).failed.length;
      } else {
        const ids = a.type === 'group' ? catalog.group(s.siteid, a._id).lights : [a._id];
        const handed = ids.map(
          (id) => control.set(catalog.light(s.siteid, id), { on: a.on, bri: a.bri }).handed,
        );
        failed = (await Promise.allSettled(handed)).filter((r) => r.status === 'rejected').length;
      }
    } catch (err) {
      failed = 1;
      log.warn({ err, schedule: s._id }, 'schedule could not run');
    }
    const at = new Date(this.#clock.now()).toISOString();
    this.#d.doc.update((d) => {
      d.lastrun[s._id] = { at, slot: new Date(slot).toISOString(), failed };
    });
    log.info({ schedule: s._id, slot: new Date(slot).toISOString(), failed }, 'schedule ran');
    this.#d.onRun?.(s, failed);
  }
}
