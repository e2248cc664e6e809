/**
 * Zigbee over a Z-Stack or EmberZNet stick (README.md): registers the `zigbee` lighting driver and starts one instance
 * on the configured site, keeps the network parameters and device table in its store (one owner), turns
 * devices that join into new lights and sensors, and offers permit-join and backup/restore to operators.
 */
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import { deviceInfo, parseProtocolId, type ZigbeeStateStore } from '../../drivers/zigbee/device.ts';
import { createZigbeeDriverFactory, ZigbeeDriver } from '../../drivers/zigbee/driver.ts';
import { findStick } from '../../drivers/zigbee/find-stick.ts';
import type { LightingExports } from '../lighting/types.ts';
import { adopt } from './adopt.ts';
import { zigbeeCommands } from './commands.ts';
import { configSchema, type ZigbeeConfig } from './config.ts';
import { mountRoutes } from './routes.ts';
import { openStateStore } from './state-store.ts';
import { listSticks } from './sticks.ts';

/** The stick chosen in the console (`PUT /admin/zigbee/stick`), used when `path` is not configured. */
interface ChosenStickDoc {
  path: string | null;
}

const DRIVER_ID = 'zigbee';

export default definePlugin<ZigbeeConfig, Record<string, never>>({
  name: 'zigbee',
  version: '0.1.0',
  description:
    'Zigbee lights, plugs, remotes and sensors through a Texas Instruments Z-Stack or Silicon Labs EmberZNet coordinator stick.',
  requires: ['lighting'],
  optional: ['console'],
  configSchema,
  commands: zigbeeCommands,
  async start(ctx) {
    const { config, log } = ctx;
    const lighting: LightingExports = ctx.use('lighting');
    // The network key is kept by ctx.secrets, which also redacts it from every log line.
    const state = await openStateStore(ctx.store, ctx.secrets);
    const store: ZigbeeStateStore = state;
    const siteId = () =>
      lighting.sites.get(config.site)?.siteid ??
      lighting.sites.list().find((s) => s.name === config.site)?.siteid ??
      null;
    let driver: ZigbeeDriver | null = null;
    const chosen = await ctx.store.open<ChosenStickDoc>('stick', { path: null });

    // A zigbeeid is `<IEEE address>/<endpoint>` (`0x00158d0001a2b3c4/1`); anything else never names a device.
    lighting.setProtocolIdRule('zigbee', (id) =>
      parseProtocolId(id) ? null : 'a zigbeeid is <IEEE address>/<endpoint>, e.g. 0x00158d0001a2b3c4/1',
    );
    lighting.registerDriverType(
      'zigbee',
      createZigbeeDriverFactory({
        store,
        observer: {
          joined(info) {
            const site = siteId();
            if (site) void adopt(lighting, site, info, log);
          },
          left(protocolid) {
            log.info({ device: protocolid }, 'zigbee device left; its light or sensor is kept');
          },
          // What a restore could not carry over stays in front of the operator until the next restore.
          restored(outcome) {
            const lost = [
              outcome.ieee?.taken === false ? outcome.ieee.reason : undefined,
              outcome.linkKeys?.reason,
              outcome.hashedTclk?.reason,
            ];
            const text = lost.filter(Boolean).join('; ');
            ctx.notices.set('restore', text ? `the Zigbee restore was partial: ${text}` : null);
          },
          // Until the stick starts with it, the console says the restore is not finished and why.
          restoreUnfinished(record) {
            ctx.notices.set(
              'restore',
              `the Zigbee restore is not finished: the stick did not start after it (${record.lastError ?? 'unknown error'}); its outcome is shown when the stick starts`,
            );
          },
        },
      }),
    );

    const startDriver = async () => {
      const path = config.path || chosen.data.path || (await findStick(config.byIdDir));
      if (!path) {
        log.info(
          'no Zigbee stick configured or found under /dev/serial/by-id; the zigbee driver is not started',
        );
        return;
      }
      // Without its key the stored network cannot be resumed, and forming a new one would orphan every
      // device: wait for the secrets key to come back (docs/secrets.md) or a restore.
      ctx.notices.set(
        'networkKey',
        state.keyMissing()
          ? 'the Zigbee network key cannot be read (secrets key missing or changed); restore it or a Zigbee backup'
          : null,
      );
      if (state.keyMissing()) return;
      const site = siteId();
      ctx.notices.set('site', site ? null : `no site named ${config.site} for the Zigbee devices`);
      if (!site) return;
      const d = await lighting.addDriver({
        id: DRIVER_ID,
        type: 'zigbee',
        site,
        options: {
          path,
          stick: config.stick,
          ...(config.channel ? { channel: config.channel } : {}),
          ...(config.occupancyTimeoutSeconds
            ? { occupancyTimeoutSeconds: config.occupancyTimeoutSeconds }
            : {}),
        },
      });
      driver = d instanceof ZigbeeDriver ? d : null;
    };
    await startDriver().catch((err: unknown) => {
      log.error({ err }, 'zigbee driver failed to start');
      ctx.notices.set('driver', 'the Zigbee driver failed to start');
    });

    ctx.tryUse('console')?.addPage({
      plugin: 'zigbee',
      id: 'zigbee',
      title: 'Zigbee',
      module: fileURLToPath(new URL('./console/zigbee.js', import.meta.url)),
      order: 35,
    });
    mountRoutes(ctx.http.router('admin', { prefix: '/admin/zigbee' }), {
      driver: () => driver,
      defaultSeconds: config.permitJoinSeconds,
      backup: () => ({ network: state.network(), devices: state.devices() }),
      async restore(network, devices) {
        if (driver) await lighting.removeDriver(DRIVER_ID);
        driver = null;
        await state.replace(network, devices);
        await startDriver();
      },
      async importNetwork(network, devices, names) {
        if (driver) await lighting.removeDriver(DRIVER_ID);
        driver = null;
        await state.replace(network, devices);
        await startDriver();
        const site = siteId();
        let added = 0;
        let named = 0;
        for (const d of devices) {
          const info = d.interviewed ? deviceInfo(d) : null;
          if (!site || !info) continue;
          const name = names.get(d.ieee);
          // Imported on purpose: named as before and not marked new.
          await adopt(lighting, site, info, log, { ...(name ? { name } : {}), isNew: false });
          added++;
          if (name) named++;
        }
        log.info({ devices: devices.length, added, named }, 'zigbee network imported');
        return { devices: devices.length, added, named };
      },
      coordinatorIeee: () => String(driver?.status().coordinator ?? ''),
      sticks: async () => ({
        folder: config.byIdDir,
        configured: config.path !== '',
        inUse: driver ? String(driver.status().path ?? '') || null : null,
        sticks: await listSticks(config.byIdDir),
      }),
      async useStick(path) {
        await chosen.commit((d) => {
          d.path = path;
        });
        // The same restart as after a restore: the driver is dropped and started on the new port.
        if (driver) await lighting.removeDriver(DRIVER_ID);
        driver = null;
        await startDriver();
      },
    });

    return {
      async stop() {
        lighting.setProtocolIdRule('zigbee', null);
        if (driver) await lighting.removeDriver(DRIVER_ID).catch(() => {});
        driver = null;
      },
      health() {
        if (!driver) return { status: 'ok', detail: 'no Zigbee stick in use' };
        return driver.connection().connected
          ? { status: 'ok' }
          : { status: 'degraded', detail: 'the Zigbee stick is not connected' };
      },
    };
  },
});
