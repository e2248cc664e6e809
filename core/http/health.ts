import type { PluginManager } from '../plugin/manager.ts';
import type { NoticesApi } from '../plugin/types.ts';
import type { WriteProblem } from '../store/types.ts';
import { VERSION } from '../version.ts';
import { type HubPhase, RETRY_AFTER_S } from './availability.ts';
import type { HearthRouter } from './types.ts';

export interface HealthSources {
  plugins: () => PluginManager | null;
  notices: () => ReturnType<NoticesApi['list']>;
  phase: () => HubPhase;
  /** Why data files cannot be written now (full or read-only disk), or null. */
  storage: () => WriteProblem | null;
}

/** The storage part of `/ready` and the admin status: `ok`, or `failing` with the reason and files. */
export function storageStatus(problem: WriteProblem | null) {
  return problem
    ? { status: 'failing' as const, reason: problem.reason, code: problem.code, files: problem.files }
    : { status: 'ok' as const };
}

/** The paths mountHealth serves: its router is mounted for these alone, so other requests skip it unmatched. */
export const HEALTH_PATHS = ['/livez', '/health', '/ready'];

/**
 * `/livez`: the process answers (200 in every phase, so a slow start is never mistaken for a hang).
 * `/health`: 200 `ok` once every plugin has started; 503 `starting`, `restoring` or `stopping` otherwise.
 * `/ready`: 503 in those phases too, and while a required plugin failed or one reports itself down; a
 * disk that refuses writes makes it `degraded` with the reason under `storage`.
 */
export function mountHealth(router: HearthRouter, src: HealthSources): void {
  const bootedAt = Date.now();
  router.get('/livez', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health', (ctx) => {
    const phase = src.phase();
    if (phase !== 'ready') {
      ctx.status = 503;
      ctx.set('Retry-After', String(RETRY_AFTER_S));
    }
    ctx.body = {
      status: phase === 'ready' ? 'ok' : phase,
      version: VERSION,
      uptime_s: Math.round((Date.now() - bootedAt) / 1000),
    };
  });
  router.get('/ready', (ctx) => {
    const phase = src.phase();
    const plugins = src.plugins()?.health() ?? [];
    const down = plugins.filter(
      (p) => (p.status === 'failed' && src.plugins()?.isRequired(p.name)) || p.health?.status === 'down',
    );
    const degraded = plugins.filter((p) => p.status === 'failed' || p.health?.status === 'degraded');
    const ready = phase === 'ready' && down.length === 0;
    // A disk that refuses writes degrades the hub (lights still switch; nothing new can be saved).
    const storage = src.storage();
    ctx.status = ready ? 200 : 503;
    if (phase !== 'ready') ctx.set('Retry-After', String(RETRY_AFTER_S));
    ctx.body = {
      status:
        phase !== 'ready'
          ? phase
          : !ready
            ? 'not_ready'
            : degraded.length > 0 || storage
              ? 'degraded'
              : 'ready',
      version: VERSION,
      storage: storageStatus(storage),
      plugins,
      notices: src.notices(),
    };
  });
}
