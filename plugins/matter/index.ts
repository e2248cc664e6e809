/**
 * Matter bridge (README.md): the lights and sensors of a site, as a Matter bridge that Apple Home, Google
 * Home, Alexa and Home Assistant commission and control on the LAN. matter.js is loaded only in `start`, so
 * the CLI and a hub with the plugin off never pay for it.
 */
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import type {} from '../console/types.ts';
import type { LightingExports } from '../lighting/types.ts';
import { matterCommands } from './commands.ts';
import { configSchema, type MatterConfig } from './config.ts';

export default definePlugin<MatterConfig, Record<string, never>>({
  name: 'matter',
  version: '0.1.0',
  description:
    'Matter bridge: Apple Home, Google Home, Alexa and Home Assistant control the lights of a site locally.',
  requires: ['lighting'],
  optional: ['console'],
  configSchema,
  commands: matterCommands,
  async start(ctx) {
    const lighting: LightingExports = ctx.use('lighting');
    const [{ Bridges }, { mountMatterRoutes }, { mountMatterSiteRoutes }] = await Promise.all([
      import('./bridges.ts'),
      import('./routes.ts'),
      import('./site-routes.ts'),
    ]);
    const bridges = new Bridges(ctx, lighting);
    const bridgeOf = (siteId: string) => bridges.get(siteId);

    ctx.bus.on('lighting.light.state', ({ siteId, lightId }) => bridgeOf(siteId)?.lightChanged(lightId));
    ctx.bus.on('lighting.sensor.event', ({ siteId, sensorId, event }) =>
      bridgeOf(siteId)?.sensorEvent(sensorId, event),
    );
    ctx.bus.on('lighting.sensor.readings', ({ siteId, sensorId, readings }) =>
      bridgeOf(siteId)?.sensorReadings(sensorId, readings),
    );
    ctx.bus.on('lighting.site.changed', ({ siteId }) => bridgeOf(siteId)?.sync());
    ctx.bus.on('lighting.driver.connection', ({ siteId }) => bridgeOf(siteId)?.reachabilityChanged());
    ctx.bus.on('lighting.site.created', () => bridges.reconcile());
    ctx.bus.on('lighting.site.deleted', ({ siteId }) => bridges.forget(siteId));

    mountMatterRoutes(ctx.http.router('admin'), bridges);
    mountMatterSiteRoutes(
      ctx.http.router('main', { errorBody: ({ message }) => ({ message }) }),
      lighting,
      bridges,
    );
    ctx.tryUse('console')?.addPage({
      plugin: 'matter',
      id: 'matter',
      title: 'Matter',
      module: fileURLToPath(new URL('./console/matter.js', import.meta.url)),
      order: 40,
    });

    await bridges.reconcile();
    return {
      stop: () => bridges.stop(),
      health() {
        const views = bridges.views();
        return { status: 'ok', detail: `${views.length} Matter bridge(s)` };
      },
    };
  },
});
