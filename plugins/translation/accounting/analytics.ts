import { invalid, notSpecified, notSupported } from '../errors.ts';
import type { UsageDays, UsageKind } from './usage-ledger.ts';

/** Usage by kind, as the ledger keeps it. */
export type UsageByKind = (kind: UsageKind) => Readonly<UsageDays>;
const KINDS: UsageKind[] = ['text', 'document', 'improvement'];

/** Characters of one report row, by kind. */
type Tally = Record<UsageKind, number>;
const zero = (): Tally => ({ text: 0, document: 0, improvement: 0 });
const total = (t: Tally) => t.text + t.document + t.improvement;

/** spec Limits: a date range of at most 366 days for both analytics endpoints. */
const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

export interface DateRange {
  start: string;
  end: string;
}

/** A request's parameters by name (a URLSearchParams, or the query and body together). */
export interface QueryParams {
  get(name: string): string | null;
}

/** Who an account is in a report: the masked key and its label. */
export type AccountInfo = (account: string) => { apiKey: string; label: string };

function parseDate(query: QueryParams, name: string): string {
  const value = query.get(name);
  if (!value) throw notSpecified(name);
  // spec: ISO 8601 date; a date-time is accepted and read as its (UTC) day.
  const match = /^(\d{4}-\d{2}-\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  const day = match?.[1];
  if (
    !day ||
    Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ||
    new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day
  ) {
    throw notSupported(name);
  }
  return day;
}

/** Both dates inclusive (README); more than 366 days is the spec's 400. */
export function parseRange(query: QueryParams): DateRange {
  const start = parseDate(query, 'start_date');
  const end = parseDate(query, 'end_date');
  const days = (Date.parse(end) - Date.parse(start)) / DAY_MS;
  if (days < 0) throw invalid("Bad request. Reason: 'end_date' must not be before 'start_date'");
  if (days > MAX_RANGE_DAYS) throw invalid('Bad request. Reason: Date range cannot exceed 366 days');
  return { start, end };
}

const stamp = (day: string) => `${day}T00:00:00`;

function keyBreakdown(t: Tally) {
  return {
    total_characters: total(t),
    text_translation_characters: t.text,
    document_translation_characters: t.document,
    text_improvement_characters: t.improvement,
    speech_to_text_minutes: 0,
  };
}

/** spec: the custom-tag breakdown has no document field; documents count in the total only. */
function tagBreakdown(t: Tally) {
  return {
    total_characters: total(t),
    text_translation_characters: t.text,
    text_improvement_characters: t.improvement,
    speech_to_text_minutes: 0,
    speech_to_speech_minutes: 0,
  };
}

function* entries(usage: UsageByKind, range: DateRange) {
  for (const kind of KINDS) {
    const days = usage(kind);
    for (const day of Object.keys(days).sort()) {
      if (day < range.start || day > range.end) continue;
      for (const [account, tags] of Object.entries(days[day] ?? {})) {
        for (const [tag, characters] of Object.entries(tags)) yield { day, account, tag, characters, kind };
      }
    }
  }
}

/** `GET /v2/admin/analytics` (spec "Usage report"; `key_usages` is the per-key list of docs/translation.md#admin-api). */
export function usageReport(usage: UsageByKind, query: QueryParams, who: AccountInfo) {
  const groupBy = query.get('group_by') ?? '';
  if (!['', 'key', 'key_and_day'].includes(groupBy)) {
    throw invalid("Value for 'group_by' not supported. Allowed: '', 'key', 'key_and_day'.");
  }
  const range = parseRange(query);
  const sum = zero();
  const grouped = new Map<string, { account: string; day: string; characters: Tally }>();
  for (const e of entries(usage, range)) {
    sum[e.kind] += e.characters;
    const k = groupBy === 'key' ? e.account : `${e.account}\t${e.day}`;
    const row = grouped.get(k) ?? { account: e.account, day: e.day, characters: zero() };
    row.characters[e.kind] += e.characters;
    grouped.set(k, row);
  }
  // Rows in day order whatever kind came first.
  const rows = [...grouped.values()].sort((a, b) => a.day.localeCompare(b.day));
  const report: Record<string, unknown> = {
    total_usage: keyBreakdown(sum),
    start_date: stamp(range.start),
    end_date: stamp(range.end),
  };
  if (groupBy) report.group_by = groupBy;
  if (groupBy === 'key') {
    report.key_usages = rows.map((r) => ({
      api_key: who(r.account).apiKey,
      api_key_label: who(r.account).label,
      usage: keyBreakdown(r.characters),
    }));
  }
  if (groupBy === 'key_and_day') {
    report.key_and_day_usages = rows.map((r) => ({
      api_key: who(r.account).apiKey,
      api_key_label: who(r.account).label,
      usage_date: `${r.day}T00:00:00Z`,
      usage: keyBreakdown(r.characters),
    }));
  }
  return { usage_report: report };
}

/** `GET /v2/admin/analytics/custom-tags`: tagged usage by tag (and day), `pageSize` entries a page. */
export function customTagReport(usage: UsageByKind, query: QueryParams, pageSize: number) {
  const aggregateBy = query.get('aggregate_by') || 'period';
  if (!['period', 'day'].includes(aggregateBy)) {
    throw invalid("Value for 'aggregate_by' not supported. Allowed: '', 'period', 'day'.");
  }
  const pageText = query.get('page') ?? '0';
  if (!/^\d{1,9}$/.test(pageText)) throw notSupported('page');
  const page = Number(pageText);
  const range = parseRange(query);
  const rows = new Map<string, { tag: string; day: string; characters: Tally }>();
  for (const e of entries(usage, range)) {
    if (e.tag === '') continue;
    const k = aggregateBy === 'day' ? `${e.tag}\t${e.day}` : e.tag;
    const row = rows.get(k) ?? { tag: e.tag, day: e.day, characters: zero() };
    row.characters[e.kind] += e.characters;
    rows.set(k, row);
  }
  const sorted = [...rows.values()].sort((a, b) => a.tag.localeCompare(b.tag) || a.day.localeCompare(b.day));
  const slice = sorted.slice(page * pageSize, (page + 1) * pageSize);
  return {
    custom_tag_usage_report: {
      aggregate_by: aggregateBy,
      start_date: stamp(range.start),
      end_date: stamp(range.end),
      next_page: (page + 1) * pageSize < sorted.length ? page + 1 : null,
      usage: slice.map((r) => ({
        custom_tag: r.tag,
        ...(aggregateBy === 'day' ? { usage_date: `${r.day}T00:00:00Z` } : {}),
        breakdown: tagBreakdown(r.characters),
      })),
    },
  };
}
