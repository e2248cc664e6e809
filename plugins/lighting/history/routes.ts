/** `GET /history`: light levels, sensor events and sensor readings of the site, newest first, in bounded pages. */
import type { HearthRouter } from '../../../core/sdk.ts';
import { invalid } from '../domain/check.ts';
import type { SiteDeps } from '../routes/context.ts';
import { siteOf } from '../routes/context.ts';
import type { History, HistoryQuery } from './history.ts';

export const HISTORY_PAGE_MAX = 1000;
const HISTORY_PAGE_DEFAULT = 200;

function one(value: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(value)) throw invalid(`${name} may be given once`);
  return value === '' ? undefined : value;
}

function time(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw invalid(`${name} must be an ISO 8601 time or milliseconds since 1970`);
  return ms;
}

export function parseHistoryQuery(query: Record<string, string | string[] | undefined>): HistoryQuery {
  const known = ['light', 'sensor', 'from', 'to', 'limit', 'type'];
  for (const k of Object.keys(query)) if (!known.includes(k)) throw invalid(`unknown parameter ${k}`);
  const q: HistoryQuery = { limit: HISTORY_PAGE_DEFAULT };
  const light = one(query.light, 'light');
  const sensor = one(query.sensor, 'sensor');
  const from = time(one(query.from, 'from'), 'from');
  const to = time(one(query.to, 'to'), 'to');
  const limit = one(query.limit, 'limit');
  const type = one(query.type, 'type');
  if (type !== undefined) {
    if (type !== 'light' && type !== 'sensor' && type !== 'reading')
      throw invalid('type must be light, sensor or reading');
    q.type = type;
  }
  if (light !== undefined) q.light = light;
  if (sensor !== undefined) q.sensor = sensor;
  if (from !== undefined) q.from = from;
  if (to !== undefined) q.to = to;
  if (limit !== undefined) {
    const n = Number(limit);
    if (!/^\d+$/.test(limit) || n < 1 || n > HISTORY_PAGE_MAX) {
      throw invalid(`limit must be an integer from 1 to ${HISTORY_PAGE_MAX}`);
    }
    q.limit = n;
  }
  return q;
}

export function mountHistory(r: HearthRouter, d: SiteDeps, history: History): void {
  r.get('/:key/history', d.access.guard('lights:read'), (ctx) => {
    const q = parseHistoryQuery(ctx.query);
    const site = siteOf(ctx);
    if (q.light !== undefined) d.catalog.light(site, q.light);
    if (q.sensor !== undefined) d.catalog.sensor(site, q.sensor);
    ctx.body = history.query(site, q);
  });
}
