import type { PluginManager } from '../plugin/manager.ts';
import type { NoticesApi } from '../plugin/types.ts';
import { VERSION } from '../version.ts';
import type { HearthRouter } from './types.ts';

export interface HealthSources {
  plugins: () => PluginManager | null;
  notices: () => ReturnType<NoticesApi['list']>;
  started: () => boolean;
}

/** `/livez` (the process answers), `/health` (summary), `/ready` (every plugin that should run, runs). */
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
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: !ready ? 'not_ready' : degraded.length > 0 ? 'degraded' : 'ready',
      version: VERSION,
      plugins,
      notices: src.notices(),
    };
  });
}
