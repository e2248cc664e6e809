/**
 * The lighting plugin: sites, the site API (the documented calls of docs/lighting.md plus the designed
 * methods in README.md), live WebSocket events, sensors and actions, drivers and the web UI.
 */
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import type {} from '../console/types.ts';
import { AccessControl } from './access.ts';
import { adoptionExports } from './adopt.ts';
import { Catalog } from './catalog.ts';
import { siteCommands } from './commands.ts';
import { configSchema, type LightingConfig } from './config.ts';
import { DeviceScenes } from './device-scenes.ts';
import { conditionHolds } from './domain/conditions.ts';
import { connectionView, DriverHost } from './drivers-host.ts';
import { startExtras } from './extras.ts';
import { followExports } from './follow.ts';
import { LightControl } from './light-control.ts';
import { Live } from './live.ts';
import { defaultReadingsDoc, type ReadingsDoc, SensorReadingsStore } from './readings/readings.ts';
import { mountAdmin } from './routes/admin.ts';
import { mountAdminDrivers } from './routes/admin-drivers.ts';
import type { SiteDeps } from './routes/context.ts';
import { mountGroups } from './routes/groups.ts';
import { lightStateDirect, mountLightDesigned, mountLightDocumented } from './routes/lights.ts';
import { mountSceneDesigned, mountSceneDocumented } from './routes/scenes.ts';
import { mountSensors } from './routes/sensors.ts';
import { mountSite, siteData } from './routes/site.ts';
import { mountStartPage } from './routes/start-page.ts';
import { loadWebFiles, mountWebAssets, mountWebPage } from './routes/web.ts';
import { SceneGroupCatalog } from './scene-group-catalog.ts';
import { SensorCatalog } from './sensor-catalog.ts';
import { SiteActions } from './site-actions.ts';
import { Sites } from './sites.ts';
import { mountSocket } from './socket.ts';
import { TokenSockets } from './token-sockets.ts';
import type { ConfigDoc, LightingExports, StateDoc } from './types.ts';

// spec error shape: `{ "message": "..." }`
const errorBody = ({ message }: { message: string }) => ({ message });

export default definePlugin<LightingConfig, LightingExports>({
  name: 'lighting',
  version: '0.1.0',
  description: 'Lights, scenes, groups, sensors and actions per site: REST + WebSocket API and a web UI.',
  configSchema,
  commands: siteCommands,
  optional: ['console'],
  async start(ctx) {
    const { config, log } = ctx;
    ctx.redact.path(/\/site\/([^/?#]+)/);
    const configDoc = await ctx.store.open<ConfigDoc>('config', {
      sites: [],
      lights: [],
      scenes: [],
      groups: [],
      sensors: [],
    });
    const stateDoc = await ctx.store.open<StateDoc>('state', { levels: {} });
    const readings = new SensorReadingsStore(
      await ctx.store.open<ReadingsDoc>('readings', defaultReadingsDoc()),
    );

    const live = new Live();
    const sites = new Sites(configDoc, ctx.bus);
    const catalog = new Catalog(configDoc);
    const access = new AccessControl(sites, () => ctx.http.origins('main'));
    let control: LightControl;
    let actions: SiteActions;
    const drivers = new DriverHost(log, {
      state: (inst, protocolid, level) => control.report(inst, protocolid, level),
      sensor: (inst, protocolid, event) => {
        const sensor = catalog.sensorByDevice(inst.siteId, inst.type, protocolid);
        if (sensor) {
          // The actions first: they run synchronously up to the driver call (the switch → bulb latency).
          void actions.sensorEvent(inst.siteId, sensor, event);
          readings.seen(sensor._id);
        } else log.debug({ driver: inst.id, event }, 'event from an unknown sensor ignored');
      },
      readings: (inst, protocolid, values) => {
        const sensor = catalog.sensorByDevice(inst.siteId, inst.type, protocolid);
        if (!sensor) return;
        const changed = readings.update(sensor._id, values);
        if (Object.keys(changed).length === 0) return;
        const at = new Date().toISOString();
        live.publish(inst.siteId, 'sensorReadings', {
          _id: sensor._id,
          name: sensor.name,
          readings: changed,
          at,
        });
        ctx.bus.emit('lighting.sensor.readings', {
          siteId: inst.siteId,
          sensorId: sensor._id,
          readings: changed,
          at,
        });
      },
      connection: (inst, linkChanged) => {
        live.publish(inst.siteId, 'connection', connectionView(inst));
        ctx.bus.emit('lighting.driver.connection', {
          siteId: inst.siteId,
          driverId: inst.id,
          vendor: inst.type,
          connected: inst.status.connected,
        });
        // Read everything back only when the link came (back) up: a detail change (one MQTT device came or
        // went) would otherwise query every device of the site each time.
        if (inst.status.connected && linkChanged) void control.resync(inst);
      },
      scenes: (inst, list) => deviceScenes.report(inst, list),
    });
    const deviceScenes = new DeviceScenes(catalog, drivers, (err, inst) =>
      log.warn({ err, driver: inst.id }, 'bridge scenes not synced'),
    );
    control = new LightControl({
      catalog,
      state: stateDoc,
      drivers,
      live,
      reconcileMs: config.reconcileMs,
      commandTimeoutMs: config.commandTimeoutMs,
      log,
    });
    actions = new SiteActions(catalog, control, live, log);

    const deps: SiteDeps = {
      sites,
      catalog,
      sceneGroups: new SceneGroupCatalog(catalog),
      sensorCatalog: new SensorCatalog(catalog),
      control,
      actions,
      readings,
      drivers,
      access,
      subdefBase: config.subdefBase,
      commandTimeoutMs: config.commandTimeoutMs,
      log,
    };
    const extras = await startExtras(ctx, deps, live);
    actions.conditionsHold = (siteId, sensorId, when) =>
      conditionHolds(when, siteId, sensorId, {
        readings: (id) => readings.values(id),
        location: (id) => extras.schedules.location(id),
        now: () => Date.now(),
      });
    // Configuration changes reach open pages and apps as `siteChanged` with the whole site.
    catalog.onChange = (siteId) => {
      if (live.count(siteId) > 0) live.publish(siteId, 'siteChanged', siteData(deps, siteId));
      const kept = new Set(catalog.data.sensors.map((x) => x._id));
      readings.forget(Object.keys(readings.all()).filter((id) => !kept.has(id)));
      extras.siteChanged(siteId);
      deviceScenes.siteChanged(siteId);
      ctx.bus.emit('lighting.site.changed', { siteId });
    };
    control.onConfirmed = (light, level) =>
      ctx.bus.emit('lighting.light.state', { siteId: light.siteid, lightId: light._id, ...level });
    actions.onEvent = (sensor, record) =>
      ctx.bus.emit('lighting.sensor.event', {
        siteId: sensor.siteid,
        sensorId: sensor._id,
        name: sensor.name,
        vendor: sensor.vendor,
        protocolid: sensor.protocolid,
        event: record.event,
        at: record.at,
      });
    catalog.onAccepted = (accepted) => ctx.bus.emit('lighting.device.accepted', accepted);
    const api = ctx.http.router('main', { prefix: '/api/site', errorBody });
    mountSite(api, deps);
    mountLightDocumented(api, deps);
    mountLightDesigned(api, deps);
    mountGroups(api, deps);
    mountSceneDocumented(api, deps);
    mountSceneDesigned(api, deps);
    mountSensors(api, deps);
    extras.mount(api);

    // The spec's own examples omit `/api` for the documented calls; the UI page lives here too.
    const files = await loadWebFiles();
    const short = ctx.http.router('main', { prefix: '/site', errorBody });
    mountLightDocumented(short, deps);
    mountSceneDocumented(short, deps);
    mountWebPage(short, access, sites, files);
    // The busiest request skips the Koa stack (same answers; the Koa routes above serve every other form).
    ctx.http.direct('main', lightStateDirect('/api/site', deps, errorBody));
    ctx.http.direct('main', lightStateDirect('/site', deps, errorBody));
    mountWebAssets(ctx.http.router('main', { paths: ['/lighting/ui'], errorBody }), files);
    mountStartPage(ctx.http.router('main', { paths: ['/'] }));
    const tokenSockets = new TokenSockets();
    mountSocket(ctx.ws, deps, live, tokenSockets, log);

    const uiUrl = (key: string) => `${ctx.http.url('main')}/site/${key}`;
    mountAdmin(ctx.http.router('admin'), {
      sites,
      uiUrl,
      counts: (siteId) => ({
        lights: catalog.lights(siteId).length,
        scenes: catalog.scenes(siteId).length,
        groups: catalog.groups(siteId).length,
        sensors: catalog.sensors(siteId).length,
      }),
      location: {
        get: (siteId) => extras.schedules.location(siteId),
        set: (siteId, place) => extras.schedules.setLocation(siteId, place),
      },
      async onSiteGone(siteId, reason) {
        live.closeSite(siteId, reason === 'deleted' ? 'site deleted' : 'site key changed');
        if (reason === 'deleted') {
          await drivers.removeSite(siteId);
          actions.forgetSite(siteId);
          await extras.forgetSite(siteId);
          control.pruneLevels();
        }
      },
    });

    mountAdminDrivers(ctx.http.router('admin'), {
      sites,
      drivers,
      catalog,
      readings,
      timeoutMs: config.commandTimeoutMs,
    });
    ctx.tryUse('console')?.addPage({
      plugin: 'lighting',
      id: 'drivers',
      title: 'Drivers and devices',
      module: fileURLToPath(new URL('./console/drivers.js', import.meta.url)),
      order: 25,
    });
    ctx.tryUse('console')?.addPage({
      plugin: 'lighting',
      id: 'sites',
      title: 'Sites',
      module: fileURLToPath(new URL('./console/sites.js', import.meta.url)),
      order: 20,
    });

    const home = config.createHomeSite ? await sites.createFirstSite('Home') : null;
    if (home) ctx.print(`Lighting: web UI of site "Home": ${uiUrl(home.sitekey)}`);

    const commands = ctx.metrics.counter('commands', 'Light commands handed to drivers');
    control.onHanded = () => commands.inc();
    const latency = ctx.metrics.histogram(
      'command_duration_seconds',
      'Light commands: until the driver took them (stage="handed") and until the device reported (stage="confirmed")',
    );
    control.onLatency = (stage, driver, seconds) => latency.observe({ stage, driver }, seconds);
    ctx.metrics.gauge('ws_subscribers', 'Open site WebSocket connections', () => live.total());
    ctx.metrics.gauge('lights', 'Lights configured on all sites', () => catalog.data.lights.length);
    ctx.metrics.gauge('driver_connected', 'Whether each driver instance is connected (1) or not (0)', () =>
      drivers
        .all()
        .map((i) => ({ labels: { driver: i.id, vendor: i.type }, value: i.status.connected ? 1 : 0 })),
    );

    const addDriver: LightingExports['addDriver'] = async (spec) => {
      const site = sites.find(spec.site);
      if (!site) throw new Error(`driver ${spec.id}: no site with id or name ${spec.site}`);
      return drivers.add({ id: spec.id, type: spec.type, siteId: site.siteid, options: spec.options ?? {} });
    };
    for (const d of config.drivers) {
      await addDriver(d).catch((err: unknown) => {
        log.error({ err, driver: d.id }, 'driver failed to start');
        ctx.notices.set(`driver-${d.id}`, `lighting driver ${d.id} (${d.type}) failed to start`);
      });
    }

    return {
      exports: {
        sites: {
          list: () => sites.list(),
          get: (id) => sites.get(id),
          resolveKey: (key) => sites.resolveKey(key),
        },
        setSiteTokenVerifier: (fn) => access.setVerifier(fn),
        revalidateTokenSockets: () => tokenSockets.revalidate(),
        broadcast: (siteId, message) => live.send(siteId, message),
        registerDriverType: (type, factory) => drivers.registerType(type, factory),
        setDeviceOwnership: (vendor, elsewhere) => catalog.setDeviceOwnership(vendor, elsewhere),
        setProtocolIdRule: (vendor, problem) => catalog.setProtocolIdRule(vendor, problem),
        siteGuard: (scope) => access.guard(scope),
        addDriver,
        removeDriver: (id) => drivers.remove(id),
        async postSensorEvent(siteId, sensorId, event) {
          await actions.sensorEvent(siteId, catalog.sensor(siteId, sensorId), event);
        },
        ...adoptionExports(deps),
        ...followExports(deps),
        useScheduleClock: (clock) => extras.schedules.useClock(clock),
      },
      async stop() {
        await extras.stop();
        tokenSockets.stop();
        live.closeAll();
        control.stop();
        await drivers.stopAll();
        await stateDoc.flush();
        await readings.flush();
        await configDoc.flush();
      },
      health() {
        const down = drivers.all().filter((i) => !i.status.connected);
        return down.length === 0
          ? { status: 'ok' }
          : { status: 'degraded', detail: `drivers not connected: ${down.map((i) => i.id).join(', ')}` };
      },
    };
  },
});
