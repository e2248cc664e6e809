import type { PluginManager } from '../plugin/manager.ts';
import type { NoticesApi } from '../plugin/types.ts';
import type { WriteProblem } from '../store/types.ts';
import { VERSION } from '../version.ts';
import type { HearthRouter } from './types.ts';

export interface HealthSources {
  plugins: () => PluginManager | null;
  notices: () => ReturnType<NoticesApi['list']>;
  started: () => boolean;
  /** Why data files cannot be written now (full or read-only disk), or null. */
  storage: () => WriteProblem | null;
}

/** The storage part of `/ready` and the admin status: `ok`, or `failing` with the reason and files. */
export function storageStatus(problem: WriteProblem | null) {
  return problem
    ? { status: 'failing' as const, reason: problem.reason, code: problem.code, files: problem.files }
    : { status: 'ok' as const };
}

/**
 * `/livez` (the process answers), `/health` (summary), `/ready` (every plugin that should run, runs; a disk
 * that refuses writes makes it `degraded` with the reason under `storage`).
 */
export function mountHealth(router: HearthRouter, src: HealthSources): void {
  const bootedAt = Date.now();
  router.get('/livez', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok', version: VERSION, uptime_s: Math.round((Date.now() - bootedAt) / 1000) };
  });
  router.get('/ready', (ctx) => {
    const plugins = src.plugins()?.health() ?? [];
    const down = plugins.filter(
      (p) => (p.status === 'failed' && src.plugins()?.isRequired(p.name)) || p.health?.status === 'down',
    );
    const degraded = plugins.filter((p) => p.status === 'failed' || p.health?.status === 'degraded');
    const ready = src.started() && down.length === 0;
    // A disk that refuses writes degrades the hub (lights still switch; nothing new can be saved).
    const storage = src.storage();
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: !ready ? 'not_ready' : degraded.length > 0 || storage ? 'degraded' : 'ready',
      version: VERSION,
      storage: storageStatus(storage),
      plugins,
      notices: src.notices(),
    };
  });
}
