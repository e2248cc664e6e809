import { timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors.ts';
import type { HearthRouter } from '../http/types.ts';
import type { LogTail } from '../log/tail.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { VERSION } from '../version.ts';

export interface CoreAdminDeps {
  status: () => unknown;
  rotateKey: () => Promise<string>;
  metrics: MetricsRegistry;
  /** The last log lines (already scrubbed of secrets), for the console's live tail. */
  logTail: LogTail;
  /** Basic-auth check for /metrics. */
  metricsAuth: (user: string, password: string) => boolean;
}

const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function basicAuthChecker(
  username: string,
  password: () => string | undefined,
  fallback: (p: string) => boolean,
) {
  return (user: string, pass: string): boolean => {
    const expected = password();
    const passOk = expected === undefined ? fallback(pass) : safeEqual(pass, expected);
    return safeEqual(user, username) && passOk;
  };
}

/** The core's own admin routes; plugins add theirs under /admin/<plugin thing>. */
export function mountCoreAdmin(router: HearthRouter, deps: CoreAdminDeps): void {
  // The guard has already checked the key: reaching here means it is valid.
  router.post('/admin/auth/verify', (ctx) => {
    ctx.body = { valid: true, version: VERSION };
  });
  router.get('/admin/hub', (ctx) => {
    ctx.body = deps.status();
  });
  router.post('/admin/admin-key/rotate', async (ctx) => {
    ctx.body = { key: await deps.rotateKey() };
  });
  // The console's live tail: lines after sequence number `after` (0: the latest `limit`), oldest first.
  router.get('/admin/log', (ctx) => {
    const after = Number(ctx.query.after ?? 0);
    const limit = Number(ctx.query.limit ?? 200);
    if (!Number.isSafeInteger(after) || after < 0)
      throw new HttpError(400, 'bad_request', 'after must be a whole number ≥ 0');
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500)
      throw new HttpError(400, 'bad_request', 'limit must be a whole number from 1 to 500');
    ctx.body = { next: deps.logTail.next, lines: deps.logTail.since(after, limit) };
  });
  // The metrics in the exposition format, under the admin key (the console draws charts from it).
  router.get('/admin/metrics', (ctx) => {
    ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    ctx.body = deps.metrics.render();
  });
  router.get('/metrics', (ctx) => {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(ctx.get('authorization'));
    const decoded = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
    const sep = decoded.indexOf(':');
    if (sep < 0 || !deps.metricsAuth(decoded.slice(0, sep), decoded.slice(sep + 1))) {
      throw new HttpError(401, 'unauthorized', 'Metrics need basic authentication', {
        headers: { 'WWW-Authenticate': 'Basic realm="hearth-metrics"' },
      });
    }
    ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    ctx.body = deps.metrics.render();
  });
}
