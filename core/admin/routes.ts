import { timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors.ts';
import type { HearthRouter } from '../http/types.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { VERSION } from '../version.ts';

export interface CoreAdminDeps {
  status: () => unknown;
  rotateKey: () => Promise<string>;
  metrics: MetricsRegistry;
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
