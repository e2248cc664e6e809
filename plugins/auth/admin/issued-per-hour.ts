import type { HearthRouter } from '../../../core/sdk.ts';
import type { AuthServices } from '../services.ts';
import { badInput, intQuery } from './util.ts';

const HOUR = 3_600_000;

/**
 * Access tokens issued per hour (every grant), from the issuance log, for the console's chart:
 * `GET /admin/stats/issued-per-hour?hours=24` (1–720) → `{hours: [{start, count}], total}`, oldest first,
 * the last bucket being the current, unfinished hour. Counts cover what the bounded log still holds.
 */
export function mountAdminIssuedPerHour(r: HearthRouter, s: AuthServices): void {
  r.get('/stats/issued-per-hour', (ctx) => {
    const hours = intQuery(ctx, 'hours', 24, 720);
    if (hours < 1) throw badInput('hours must be between 1 and 720');
    const current = Math.floor(Date.now() / HOUR) * HOUR;
    const first = current - (hours - 1) * HOUR;
    const counts = new Array<number>(hours).fill(0);
    s.issuances.where((i) => {
      if (i.t >= first) counts[Math.min(hours - 1, Math.floor((i.t - first) / HOUR))]! += 1;
      return false;
    });
    ctx.body = {
      hours: counts.map((count, n) => ({ start: new Date(first + n * HOUR).toISOString(), count })),
      total: counts.reduce((a, b) => a + b, 0),
    };
  });
}
