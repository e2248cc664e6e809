import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { ownChild, setOwn } from '../own.ts';

/** Billed characters by UTC day, account and reporting tag (`''` = untagged). */
export type UsageDays = Record<string, Record<string, Record<string, number>>>;

/** What characters were billed for: `/v2/translate`, documents, or rephrase/correct. */
export type UsageKind = 'text' | 'document' | 'improvement';

interface UsageDoc {
  /** Text translation (the file's original shape, kept so older data files read unchanged). */
  days: UsageDays;
  /** Every other kind, in the same shape. */
  kinds?: Partial<Record<Exclude<UsageKind, 'text'>, UsageDays>>;
}

/** Distinct reporting tags kept per account and day; further ones are counted under OTHER_TAGS. */
export const MAX_TAGS_PER_DAY = 1000;
export const OTHER_TAGS = '(other tags)';
/** Days of usage kept (the analytics range is 366 days; a little more stays queryable). */
export const RETENTION_DAYS = 400;

export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const monthOf = (day: string) => day.slice(0, 7);

/** Counts Unicode code points, the characters a client sees (not UTF-16 units). */
export function characterCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * Usage accounting. Counters change in memory and reach disk through the store's coalesced `update()`
 * (docs/translation.md#performance-budget: never a write per request). A request first reserves its characters against the account's
 * monthly limit, then either records them once (success, whichever engine answered) or releases them: so
 * nothing is double counted on failover and concurrent requests cannot overshoot a limit.
 */
export class UsageLedger {
  /** `${month}\t${account}` → characters recorded. */
  private readonly monthly = new Map<string, number>();
  private readonly reserved = new Map<string, number>();

  private constructor(private readonly doc: DocStore<UsageDoc>) {
    const all = [doc.data.days, ...Object.values(doc.data.kinds ?? {})];
    for (const [day, accounts] of all.flatMap((days) => Object.entries(days))) {
      for (const [account, tags] of Object.entries(accounts)) {
        const sum = Object.values(tags).reduce((a, b) => a + b, 0);
        const k = `${monthOf(day)}\t${account}`;
        this.monthly.set(k, (this.monthly.get(k) ?? 0) + sum);
      }
    }
  }

  static async open(store: PluginStore, now = new Date()): Promise<UsageLedger> {
    const doc = await store.open<UsageDoc>('usage', { days: {} });
    const oldest = dayOf(new Date(now.getTime() - RETENTION_DAYS * 86_400_000));
    const all = [doc.data.days, ...Object.values(doc.data.kinds ?? {})];
    if (all.some((days) => Object.keys(days).some((day) => day < oldest))) {
      doc.update((d) => {
        for (const days of [d.days, ...Object.values(d.kinds ?? {})]) {
          for (const day of Object.keys(days)) if (day < oldest) delete days[day];
        }
      });
    }
    return new UsageLedger(doc);
  }

  get days(): Readonly<UsageDays> {
    return this.doc.data.days;
  }

  /** Usage of one kind (`text` is `days`). */
  daysOf(kind: UsageKind): Readonly<UsageDays> {
    return kind === 'text' ? this.doc.data.days : (this.doc.data.kinds?.[kind] ?? {});
  }

  /** Characters recorded for the account in the calendar month (UTC) of `now`. */
  used(account: string, now = new Date()): number {
    return this.monthly.get(`${monthOf(dayOf(now))}\t${account}`) ?? 0;
  }

  /** Reserves characters; false when the limit is reached or the request would pass it (→ 456). */
  reserve(account: string, characters: number, limit: number | null): boolean {
    const pending = this.reserved.get(account) ?? 0;
    if (limit !== null) {
      const used = this.used(account) + pending;
      if (used >= limit || used + characters > limit) return false;
    }
    this.reserved.set(account, pending + characters);
    return true;
  }

  release(account: string, characters: number): void {
    const left = (this.reserved.get(account) ?? 0) - characters;
    if (left > 0) this.reserved.set(account, left);
    else this.reserved.delete(account);
  }

  /** Turns a reservation into recorded usage (coalesced write). */
  record(account: string, tag: string, characters: number, now = new Date(), kind: UsageKind = 'text'): void {
    this.release(account, characters);
    if (characters === 0) return;
    const day = dayOf(now);
    const k = `${monthOf(day)}\t${account}`;
    this.monthly.set(k, (this.monthly.get(k) ?? 0) + characters);
    this.doc.update((d) => {
      // Accounts and tags are outside ids (a tag is whatever the client sent): own properties only.
      let days = d.days;
      if (kind !== 'text') {
        d.kinds ??= {};
        days = d.kinds[kind] ??= {};
      }
      const tags = ownChild(ownChild(days, day), account);
      // Tags are client-chosen: past MAX_TAGS_PER_DAY distinct ones the rest share one bucket, so a client
      // sending a new tag per request cannot grow the file without bound.
      const bucket =
        Object.hasOwn(tags, tag) || Object.keys(tags).length < MAX_TAGS_PER_DAY ? tag : OTHER_TAGS;
      // An own key is a plain data property: assigning it is safe, and far cheaper than defining it.
      if (Object.hasOwn(tags, bucket)) tags[bucket] = (tags[bucket] as number) + characters;
      else setOwn(tags, bucket, characters);
    });
  }

  flush(): Promise<void> {
    return this.doc.flush();
  }
}
