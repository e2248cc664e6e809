/**
 * Schedules and history: stores, the scheduler, the bus subscriptions that feed the history, and their
 * routes. Kept apart from index.ts so the core of the plugin stays as it was.
 */
import type { HearthRouter, PluginContext } from '../../core/sdk.ts';
import type { LightingConfig } from './config.ts';
import { History, type HistoryEntry } from './history/history.ts';
import { mountHistory } from './history/routes.ts';
import type { Live } from './live.ts';
import type { SiteDeps } from './routes/context.ts';
import { systemClock } from './schedules/clock.ts';
import { mountSchedules } from './schedules/routes.ts';
import { defaultSchedulesDoc, Schedules } from './schedules/schedules.ts';

export async function startExtras(ctx: PluginContext<LightingConfig>, deps: SiteDeps, live: Live) {
  const { config } = ctx;
  const schedules = new Schedules({
    doc: await ctx.store.open('schedules', defaultSchedulesDoc()),
    catalog: deps.catalog,
    control: deps.control,
    actions: deps.actions,
    log: ctx.log,
    clock: systemClock,
    catchUpMs: config.scheduleCatchUpMinutes * 60_000,
    onRun: (s, failed) => live.publish(s.siteid, 'scheduleRan', { _id: s._id, name: s.name, failed }),
  });
  const log = await ctx.store.openLog<HistoryEntry>('history', {
    max: config.historyMaxEntries,
    maxAgeMs: config.historyDays * 86_400_000,
    timeOf: (e) => e.at,
    coalesceMs: config.historyWriteSeconds * 1000,
  });
  const history = new History(log);
  const offs = [
    ctx.bus.on('lighting.light.state', (e) => history.light(e.siteId, e.lightId, e)),
    ctx.bus.on('lighting.sensor.event', (e) =>
      history.sensor(e.siteId, e.sensorId, e.event, Date.parse(e.at)),
    ),
    ctx.bus.on('lighting.sensor.readings', (e) =>
      history.readings(e.siteId, e.sensorId, e.readings, Date.parse(e.at)),
    ),
  ];
  schedules.start();
  return {
    schedules,
    history,
    mount(api: HearthRouter) {
      mountSchedules(api, deps, schedules);
      mountHistory(api, deps, history);
    },
    /** After a configuration change of a site: drop schedules whose target is gone. */
    siteChanged(siteId: string) {
      schedules.pruneTargets(siteId).catch((err: unknown) => ctx.log.warn({ err }, 'schedules not pruned'));
    },
    forgetSite: (siteId: string) => schedules.forgetSite(siteId),
    async stop() {
      for (const off of offs) off();
      schedules.stop();
      await history.flush();
    },
  };
}
