/**
 * Hue bridges (README.md): registers the `hue` lighting driver, one instance per paired bridge serving one
 * site; pairs bridges (admin routes, CLI) and keeps their application keys as secrets.
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import { discoverBridges, mdnsOptionsFor, refindBridge } from '../../drivers/hue/discovery.ts';
import { createHueDriver, type HueDriver } from '../../drivers/hue/driver.ts';
import { pairBridge } from '../../drivers/hue/pairing.ts';
import { bundledRoots } from '../../drivers/hue/roots.ts';
import type { LightingExports } from '../lighting/types.ts';
import { type BridgeRecord, Bridges, type BridgesDoc, type KeysDoc, migratePlainKeys } from './bridges.ts';
import { hueCommands } from './commands.ts';
import { configSchema, type HueConfig } from './config.ts';
import { hueIdProblem } from './hue-ids.ts';
import { Pairings, type PairingsDoc } from './pairings.ts';
import { mountHueRoutes } from './routes.ts';

const driverId = (bridgeId: string) => `hue-${bridgeId}`;

export default definePlugin<HueConfig, Record<string, never>>({
  name: 'hue',
  version: '0.1.0',
  description: 'Philips Hue bridges over CLIP v2: lights, rooms, zones, scenes, switches and sensors.',
  requires: ['lighting'],
  optional: ['console'],
  configSchema,
  commands: hueCommands,
  async start(ctx) {
    const { config, log } = ctx;
    const lighting: LightingExports = ctx.use('lighting');
    // The shipped Hue roots, plus any the operator adds (docs/hue.md#tls).
    const roots = [...bundledRoots(), ...(await Promise.all(config.roots.map((f) => readFile(f, 'utf8'))))];
    // Keys stored in plain text by an older version move into ctx.secrets (encrypted, redacted).
    const moved = await migratePlainKeys(await ctx.store.open<KeysDoc>('keys', { keys: {} }), ctx.secrets);
    if (moved > 0) log.info({ moved }, 'Hue application keys moved into the secrets store');
    const bridges = new Bridges(await ctx.store.open<BridgesDoc>('bridges', { bridges: [] }), ctx.secrets);
    const running = new Map<string, HueDriver>();
    // Where discovery asks (the `discovery` setting; by default the mDNS group on every interface).
    const mdns = mdnsOptionsFor(config.discovery);

    // A hueid names a CLIP v2 resource (a light or device id, `grouped_light/<id>`); anything else never could.
    lighting.setProtocolIdRule('hue', hueIdProblem);
    // The config names a bridge by id; its address, trust and key come from pairing.
    lighting.registerDriverType('hue', (init) => {
      const id = String(init.options.bridgeId ?? '');
      const b = bridges.get(id);
      const appKey = bridges.key(id);
      if (!b) throw new Error(`bridge ${id} is not paired (hearth hue pair)`);
      if (!appKey)
        throw new Error(
          `the application key of bridge ${id} cannot be read: pair it again (hearth hue pair)`,
        );
      return createHueDriver({
        ...init,
        options: {
          host: b.host,
          port: b.port,
          bridgeId: b.bridgeId,
          appKey,
          roots,
          ...(b.pinnedCert ? { pinnedCert: b.pinnedCert } : {}),
          readTimeoutMs: config.readTimeoutMs,
          // The bridge stopped answering: look for it by id over mDNS and remember a new address.
          refind: async (bridgeId: string) => {
            const at = await refindBridge(bridgeId, { mdns }).catch(() => null);
            const known = bridges.get(bridgeId);
            if (at && known && (at.host !== known.host || at.port !== known.port)) {
              await bridges.setAddress(bridgeId, at.host, at.port);
            }
            return at;
          },
        },
      });
    });

    const startBridge = async (b: BridgeRecord) => {
      try {
        const d = (await lighting.addDriver({
          id: driverId(b.bridgeId),
          type: 'hue',
          site: b.site,
          options: { bridgeId: b.bridgeId },
        })) as HueDriver;
        running.set(b.bridgeId, d);
        ctx.notices.set(`bridge-${b.bridgeId}`, null);
      } catch (err) {
        log.error({ err, bridge: b.bridgeId }, 'Hue bridge driver failed to start');
        ctx.notices.set(`bridge-${b.bridgeId}`, `Hue bridge ${b.bridgeId} could not be started`);
      }
    };
    const stopBridge = async (bridgeId: string) => {
      if (!running.delete(bridgeId)) return;
      await lighting
        .removeDriver(driverId(bridgeId))
        .catch((err: unknown) => log.warn({ err }, 'driver not removed'));
    };
    for (const b of bridges.list()) await startBridge(b);

    ctx.bus.on('lighting.site.deleted', async ({ siteId }) => {
      for (const b of bridges.list().filter((x) => x.site === siteId)) {
        await stopBridge(b.bridgeId);
        await bridges.remove(b.bridgeId);
      }
    });

    const pairings = new Pairings(await ctx.store.open<PairingsDoc>('pairings', { jobs: [] }), {
      timeoutMs: config.pairingTimeoutMs,
      signal: ctx.signal,
      bridge: (bridgeId) => bridges.get(bridgeId),
      onError: (err, job) => log.error({ err, pairing: job.id }, 'Hue pairing failed'),
      pair: ({ host, port, bridgeId }, deadlineAt, onWaiting) =>
        pairBridge({
          host,
          port,
          roots,
          pinUnverified: config.pinUnverified,
          deadlineAt,
          devicetype: `hearth#${hostname()}`.slice(0, 40),
          ...(bridgeId ? { bridgeId } : {}),
          signal: ctx.signal,
          onWaiting: (info) => {
            log.info(info, 'Hue pairing: waiting for the link button');
            onWaiting(info);
          },
        }),
      async complete({ host, port, site }, paired) {
        const record: BridgeRecord = {
          bridgeId: paired.bridgeId,
          host,
          port,
          site,
          ...(paired.pinnedCert ? { pinnedCert: paired.pinnedCert } : {}),
          fingerprint256: paired.fingerprint256,
          pairedAt: new Date().toISOString(),
        };
        await stopBridge(record.bridgeId);
        await bridges.save(record, paired.appKey);
        if (paired.pinnedCert) {
          log.warn(
            { bridge: record.bridgeId, fingerprint256: record.fingerprint256 },
            'Hue bridge not verified by a trusted root: certificate pinned',
          );
        }
        log.info({ bridge: record.bridgeId, site }, 'Hue bridge paired');
        await startBridge(record);
        return record;
      },
    });
    // A pairing a restart interrupted waits on until its deadline.
    pairings.resume();

    mountHueRoutes(ctx.http.router('admin', { prefix: '/admin/hue' }), {
      lighting,
      discover: async () =>
        (await discoverBridges({ mdns })).map((b) => ({
          ...b,
          paired: bridges.get(b.bridgeId) !== undefined,
        })),
      list: () =>
        bridges.list().map((record) => ({
          record,
          connected: running.get(record.bridgeId)?.connection().connected ?? false,
        })),
      pairings,
      bridge: (bridgeId) => bridges.get(bridgeId),
      async remove(bridgeId) {
        if (!bridges.get(bridgeId)) return false;
        await stopBridge(bridgeId);
        await bridges.remove(bridgeId);
        ctx.notices.set(`bridge-${bridgeId}`, null);
        return true;
      },
      scenes: (bridgeId) => {
        const d = running.get(bridgeId);
        return d?.connection().connected ? d.scenes() : null;
      },
      recall: (bridgeId, sceneId) => (running.get(bridgeId) as HueDriver).recallScene(sceneId),
    });

    ctx.tryUse('console')?.addPage({
      plugin: 'hue',
      id: 'bridges',
      title: 'Hue bridges',
      module: fileURLToPath(new URL('./console/bridges.js', import.meta.url)),
      order: 30,
    });

    return {
      async stop() {
        lighting.setProtocolIdRule('hue', null);
        for (const id of [...running.keys()]) await stopBridge(id);
      },
      health() {
        const down = [...running.entries()].filter(([, d]) => !d.connection().connected).map(([id]) => id);
        return down.length === 0
          ? { status: 'ok' }
          : { status: 'degraded', detail: `Hue bridges not connected: ${down.join(', ')}` };
      },
    };
  },
});
