/**
 * Each light's level, each sensor's event and readings over the last days, in one bounded log
 * (`lighting.history.json`: at most `max` entries, none older than the kept days, written at most once per
 * write interval). A light's changes less than `mergeMs` apart are one entry, the last (a dimmer being
 * dragged is one change, not fifty), so a busy home does not fill the log with steps.
 */
import type { LogStore } from '../../../core/sdk.ts';
import type { SensorReadings } from '../../../drivers/lighting/index.ts';

export interface HistoryEntry {
  /** ms since the epoch */
  at: number;
  site: string;
  kind: 'light' | 'sensor' | 'reading';
  id: string;
  on?: boolean;
  bri?: number;
  event?: string;
  readings?: SensorReadings;
}

export interface HistoryQuery {
  light?: string;
  sensor?: string;
  /** inclusive, ms */
  from?: number;
  /** exclusive, ms: pass the `at` of a page's last entry to get the next (older) page */
  to?: number;
  limit: number;
  /** Only entries of this type. */
  type?: 'light' | 'sensor' | 'reading';
}

export type HistoryView =
  | { at: string; type: 'light'; _id: string; on: boolean; bri: number }
  | { at: string; type: 'sensor'; _id: string; event: string }
  | { at: string; type: 'reading'; _id: string; readings: SensorReadings };

export const HISTORY_MERGE_MS = 2000;

export class History {
  readonly #log: LogStore<HistoryEntry>;
  readonly #mergeMs: number;
  readonly #pending = new Map<string, { entry: HistoryEntry; timer: ReturnType<typeof setTimeout> }>();

  constructor(log: LogStore<HistoryEntry>, mergeMs = HISTORY_MERGE_MS) {
    this.#log = log;
    this.#mergeMs = mergeMs;
  }

  light(site: string, id: string, level: { on: boolean; bri: number }, at = Date.now()): void {
    const entry: HistoryEntry = { at, site, kind: 'light', id, on: level.on, bri: level.bri };
    const pending = this.#pending.get(id);
    if (pending) {
      pending.entry = entry;
      return;
    }
    const timer = setTimeout(() => this.#settle(id), this.#mergeMs);
    timer.unref?.();
    this.#pending.set(id, { entry, timer });
  }

  /**
   * A sensor's readings; those arriving within the merge window are one entry (a weather sensor sends
   * temperature, humidity and pressure as three reports). Link quality is not history.
   */
  readings(site: string, id: string, readings: SensorReadings, at = Date.now()): void {
    const { linkquality: _, ...kept } = readings;
    if (Object.keys(kept).length === 0) return;
    const pending = this.#pending.get(id);
    if (pending?.entry.kind === 'reading') {
      pending.entry = { ...pending.entry, at, readings: { ...pending.entry.readings, ...kept } };
      return;
    }
    const timer = setTimeout(() => this.#settle(id), this.#mergeMs);
    timer.unref?.();
    this.#pending.set(id, { entry: { at, site, kind: 'reading', id, readings: kept }, timer });
  }

  sensor(site: string, id: string, event: string, at = Date.now()): void {
    void this.#log.append({ at, site, kind: 'sensor', id, event });
  }

  #settle(id: string): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    void this.#log.append(p.entry);
  }

  /** Newest first. */
  query(site: string, q: HistoryQuery): HistoryView[] {
    const out: HistoryView[] = [];
    const items = this.#log.items;
    const filtered = q.light !== undefined || q.sensor !== undefined;
    for (let i = items.length - 1; i >= 0 && out.length < q.limit; i--) {
      const e = items[i]!;
      if (e.site !== site) continue;
      if (q.to !== undefined && e.at >= q.to) continue;
      if (q.from !== undefined && e.at < q.from) break;
      if (filtered && !(e.kind === 'light' ? e.id === q.light : e.id === q.sensor)) continue;
      if (q.type !== undefined && (e.kind === 'reading' ? 'reading' : e.kind) !== q.type) continue;
      out.push(view(e));
    }
    return out;
  }

  /** Writes what is pending (a stop). */
  async flush(): Promise<void> {
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      this.#settle(id);
    }
    await this.#log.flush();
  }
}

function view(e: HistoryEntry): HistoryView {
  const at = new Date(e.at).toISOString();
  if (e.kind === 'light') return { at, type: 'light', _id: e.id, on: e.on ?? false, bri: e.bri ?? 0 };
  if (e.kind === 'reading') return { at, type: 'reading', _id: e.id, readings: e.readings ?? {} };
  return { at, type: 'sensor', _id: e.id, event: e.event ?? '' };
}
