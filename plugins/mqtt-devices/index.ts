/**
 * MQTT bulbs, wall switches and sensors (README.md): registers the `mqtt` lighting driver (one instance per
 * site, on the hub's broker or an external one), keeps the device registry (discovered devices marked new,
 * vanished ones unavailable), owns device credentials and the broker hooks that check them, and bridges
 * Hearth's own `hearth/<site>/…` topics (README).
 */

import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import { createMqttDriverFactory } from '../../drivers/mqtt/driver.ts';
import { connectFanout, inProcessLink } from '../../drivers/mqtt/inprocess-link.ts';
import type { DriverObserver } from '../../drivers/mqtt/observer.ts';
import type {} from '../console/types.ts';
import type { LightingExports } from '../lighting/types.ts';
import { Adopter } from './adopt.ts';
import { brokerHooks } from './broker-access.ts';
import { mqttCommands } from './commands.ts';
import { configSchema, type MqttDevicesConfig } from './config.ts';
import { Credentials, type CredentialsDoc } from './credentials.ts';
import { HaPublisher } from './ha-publish.ts';
import { HearthTopics } from './hearth-topics.ts';
import { Instances } from './instances.ts';
import { Ownership } from './ownership.ts';
import { mqttIdProblem } from './protocol-ids.ts';
import { type LevelsDoc, Registry, type RegistryDoc } from './registry.ts';
import { mountRoutes } from './routes.ts';
import { loadPages, mountSiteRoutes } from './site-routes.ts';
import { SiteTopics } from './site-topics.ts';
import { TopicOwners } from './topic-owners.ts';

export default definePlugin<MqttDevicesConfig, Record<string, never>>({
  name: 'mqtt-devices',
  version: '0.1.0',
  description:
    'MQTT lights, switches and sensors (zigbee2mqtt, Home Assistant, Tasmota, Shelly), device credentials, hearth/<site>/ topics.',
  requires: ['lighting'],
  optional: ['auth', 'console'],
  configSchema,
  commands: mqttCommands,
  async start(ctx) {
    const { config, log } = ctx;
    const lighting: LightingExports = ctx.use('lighting');
    if (config.broker.password) ctx.redact.value(config.broker.password);
    const credentials = new Credentials(
      await ctx.store.open<CredentialsDoc>('credentials', { credentials: [] }),
    );
    const registry = new Registry(
      await ctx.store.open<RegistryDoc>('devices', { devices: [] }),
      // Levels change with every report; they only serve the device list (`on`/`bri`) after a restart.
      await ctx.store.open<LevelsDoc>('levels', { levels: {} }, { coalesceMs: 10_000 }),
    );
    const ownership = new Ownership(registry, lighting, { zigbee2mqttBase: config.zigbee2mqttBase });
    // A device belongs to one site: another site's light or sensor cannot name it (409 on the site API).
    lighting.setDeviceOwnership(
      'mqtt',
      (site, protocolid) => ownership.otherOwner(site, protocolid) !== null,
    );
    // An mqttid that can name no device (`tasmota:+`) is refused (400) instead of failing every command.
    lighting.setProtocolIdRule('mqtt', (id) =>
      mqttIdProblem(id, { zigbee2mqttBase: config.zigbee2mqttBase }),
    );
    const instances = new Instances(lighting, registry, config, log, ownership);
    const adopter = new Adopter(lighting, registry, log);
    // One `new` mark for a device and the light made from it: accepting either side accepts both.
    registry.onAccepted = (r) => {
      lighting
        .acceptDevice(r.site, 'mqtt', r.protocolid)
        .catch((err: unknown) => log.warn({ err, device: r.protocolid }, 'light not accepted'));
    };
    ctx.bus.on('lighting.device.accepted', async ({ siteId, vendor, protocolid }) => {
      const r = vendor === 'mqtt' ? registry.get(protocolid) : undefined;
      if (r?.new && r.site === siteId) await registry.patch(protocolid, { new: false });
    });
    const owners = new TopicOwners(registry, config);
    ctx.mqtt.hooks(
      brokerHooks(
        credentials,
        (key) => lighting.sites.resolveKey(key),
        {
          owners,
          discoverySite: () => instances.discoverySite(),
          listeners: (filter) => ctx.mqtt.listeners(filter),
          zigbee2mqttBase: config.zigbee2mqttBase,
        },
        log,
      ),
    );

    const siteName = (site: string) => lighting.sites.get(site)?.name ?? site;
    const topics = new HearthTopics(ctx.mqtt, log, {
      // hearth/<site>/… only reaches that site's lights (the ACL already keeps clients in their site).
      setLight: (site, lightId, level) => lighting.setLightState(site, lightId, level),
      postSensorEvent: (site, sensorId, event) => lighting.postSensorEvent(site, sensorId, event),
    });
    const ha = config.publishHomeAssistant
      ? new HaPublisher(ctx.mqtt, config.homeAssistantPrefix, log)
      : null;
    await ha?.watchRetained((site) => lighting.sites.get(site) !== null);
    const siteTopics = new SiteTopics(lighting, registry, topics, ha);
    // Every light and sensor of every site, whatever its vendor, keyed by its lighting _id.
    ctx.bus.on('lighting.light.state', ({ siteId, lightId, ...state }) =>
      siteTopics.state(siteId, lightId, state),
    );
    ctx.bus.on('lighting.sensor.event', ({ siteId, sensorId, event }) =>
      siteTopics.event(siteId, sensorId, event),
    );
    ctx.bus.on('lighting.site.changed', async ({ siteId }) => {
      siteTopics.sync(siteId);
      await instances.refresh(siteId);
    });

    /** Reports about a device go out under the site the registry assigns it to, once. */
    const mine = (site: string, protocolid: string) => {
      const r = registry.get(protocolid);
      return !r || r.site === site;
    };
    const observer = (driverId: string): DriverObserver => {
      const site = Instances.siteOf(driverId);
      return {
        discovered(device, source) {
          // A discovery can still be in flight when the plugin stops and its store closes: what was not
          // recorded is announced again (retained) at the next start, so it is logged, not thrown.
          registry
            .seen(site, device, source)
            .then(async (isNew) => {
              const r = registry.get(device.protocolid);
              if (isNew) log.info({ device: device.protocolid, site, source }, 'new MQTT device discovered');
              if (r && r.site === site) await adopter.adopt(site, r.protocolid);
            })
            .catch((err: unknown) =>
              log.warn({ err, device: device.protocolid, site }, 'discovered device not recorded'),
            );
        },
        gone(protocolid) {
          registry.gone(protocolid);
          if (mine(site, protocolid)) siteTopics.device(site, protocolid, false);
        },
        availability(protocolid, online) {
          registry.availability(protocolid, online);
          if (mine(site, protocolid)) siteTopics.device(site, protocolid, online);
        },
        // Levels and events reach Hearth's topics through lighting (its bus events), like any vendor's.
        state(protocolid, level) {
          if (mine(site, protocolid)) registry.level(protocolid, level);
        },
        owns: (protocolid) => ownership.owns(site, protocolid),
        detail: () => ({
          new: registry
            .forSite(site)
            .filter((r) => r.new)
            .map((r) => r.protocolid),
        }),
      };
    };
    const fanout = connectFanout(ctx.mqtt);
    lighting.registerDriverType(
      'mqtt',
      createMqttDriverFactory({ inProcess: () => inProcessLink(ctx.mqtt, fanout), observer }),
    );

    /** Retained topics die with the embedded broker: republish what Hearth knows (docs/mqtt-devices.md#the-embedded-broker). */
    const republish = () => {
      for (const site of instances.sites()) topics.siteStatus(site, true);
      siteTopics.republish();
    };

    const startSite = async (site: string) => {
      try {
        await instances.start(site);
        topics.siteStatus(site, true);
      } catch (err) {
        log.error({ err, site }, 'mqtt driver failed to start');
        ctx.notices.set(`driver-${site}`, `the MQTT driver of site ${siteName(site)} failed to start`);
      }
    };
    // In parallel: with an external broker down, each instance waits a few seconds for its first connection.
    await Promise.all(lighting.sites.list().map((s) => startSite(s.siteid)));
    // Kept current: the discovery site may be created (or deleted) while the hub runs.
    const discoveryNotice = () =>
      ctx.notices.set(
        'discovery-site',
        config.discoverySite && !instances.discoverySite()
          ? `MQTT discovery is off: no site named ${config.discoverySite}`
          : null,
      );
    discoveryNotice();
    ctx.bus.on('lighting.site.created', ({ siteId }) => {
      discoveryNotice();
      return startSite(siteId);
    });
    ctx.bus.on('lighting.site.deleted', async ({ siteId }) => {
      await instances.stop(siteId);
      topics.siteStatus(siteId, false);
      siteTopics.siteDeleted(siteId);
      await registry.removeSite(siteId);
      await credentials.removeSite(siteId);
      discoveryNotice();
    });
    await topics.listen();
    ctx.mqtt.onConnect(republish);

    // The site key is in these paths: keep it out of the logs (the lighting plugin does the same for its own).
    ctx.redact.path(/\/mqtt\/site\/([^/?#]+)/);
    mountSiteRoutes(ctx.http.router('main', { errorBody: ({ message }) => ({ message }) }), {
      lighting,
      registry,
      credentials,
      log,
      files: await loadPages(),
    });
    ctx.tryUse('console')?.addPage({
      plugin: 'mqtt-devices',
      id: 'mqtt-credentials',
      title: 'MQTT credentials',
      module: fileURLToPath(new URL('./console/credentials.js', import.meta.url)),
      order: 30,
    });
    ctx.tryUse('console')?.addPage({
      plugin: 'mqtt-devices',
      id: 'mqtt-devices',
      title: 'MQTT devices',
      module: fileURLToPath(new URL('./console/devices.js', import.meta.url)),
      order: 31,
    });
    mountRoutes(ctx.http.router('admin', { prefix: '/admin/mqtt' }), {
      lighting,
      credentials,
      registry,
      ownership,
      mqtt: ctx.mqtt,
      log,
      zigbee2mqttBase: config.zigbee2mqttBase,
      async devicesChanged(sites) {
        for (const s of new Set(sites)) await instances.restart(s);
      },
    });

    return {
      async stop() {
        lighting.setDeviceOwnership('mqtt', null);
        lighting.setProtocolIdRule('mqtt', null);
        for (const site of instances.sites()) topics.siteStatus(site, false);
        await instances.stopAll();
        await registry.flush();
      },
      health() {
        const down = instances.sites().filter((s) => !instances.driver(s)?.connection().connected);
        return down.length === 0
          ? { status: 'ok' }
          : { status: 'degraded', detail: `MQTT drivers not connected: ${down.join(', ')}` };
      },
    };
  },
});
