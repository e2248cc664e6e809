/**
 * The `mqtt` lighting driver: device profiles over one link, discovery, presence, resync. State comes
 * only from the devices' own reports (the lighting plugin reconciles the silent ones); after every
 * (re)connection each device is asked for its state (docs/lighting.md#desired-and-reported-state "full resync after any reconnect").
 */
import {
  type DriverFactory,
  ForeignDeviceError,
  type LightColour,
  type LightingDriver,
  type LightLevel,
  type LightState,
  type LightTarget,
} from '../lighting/index.ts';
import { deviceFromProtocolId, deviceInfo, type MqttDevice } from './device.ts';
import { type DeviceSource, DeviceTable, type Entry, mergeLevel } from './device-table.ts';
import { Discovery } from './discovery/discovery.ts';
import { externalLink } from './external-link.ts';
import type { MqttLink } from './link.ts';
import type { MqttDriverDeps } from './observer.ts';
import { parseOptions } from './options.ts';
import { PayloadError } from './payload.ts';
import { profiles } from './profiles/index.ts';
import type { Inbound } from './profiles/types.ts';
import { pause, ReportWaiters } from './report-waiters.ts';
import { Subscriptions } from './subscriptions.ts';

const READ_WAIT_MS = 1000;

/** A report's colour laid over what the device said before (a device may report its power alone). */
function colourOfReport(prev: LightState | null, what: LightColour): LightColour {
  const out: LightColour = {};
  const ct = what.ct ?? prev?.ct;
  const xy = what.xy ?? prev?.xy;
  const mode = what.colormode ?? prev?.colormode;
  if (ct !== undefined) out.ct = ct;
  if (xy !== undefined) out.xy = xy;
  if (mode !== undefined) out.colormode = mode;
  return out;
}
/** start() waits this long at most for the devices to answer the first resync. */
const RESYNC_WAIT_MS = 1000;

/** The `mqtt` driver's one addition to the lighting interface. */
export interface MqttLightingDriver extends LightingDriver {
  /**
   * Watches devices the plugin learnt of while running (a sensor made on the site API never gets a command,
   * which is how a light named only by its id joins): subscribed at once, lights asked for their state.
   */
  watch(devices: MqttDevice[]): void;
}

export function createMqttDriverFactory(deps: MqttDriverDeps = {}): DriverFactory {
  return ({ id, options, sink, log, signal }): MqttLightingDriver => {
    const opts = parseOptions(options);
    const observer = deps.observer?.(id);
    const table = new DeviceTable();
    const subs = new Subscriptions((topic, payload, retain) => dispatch(topic, payload, retain));
    const waiters = new ReportWaiters();
    let link: MqttLink | null = null;
    let stopped = false;
    let since = new Date().toISOString();

    const detail = () => ({
      devices: table.all().length,
      unavailable: table.unavailable(),
      broker: opts.broker ? 'external' : 'hub',
      ...observer?.detail?.(),
    });
    const owns = (protocolid: string) => observer?.owns?.(protocolid) ?? true;
    const report = () => sink.reportConnection({ connected: link?.connected ?? false, detail: detail() });

    const put = (device: MqttDevice, source: DeviceSource): Entry => {
      const { entry, stale } = table.put(device, source);
      for (const t of stale) subs.remove(t);
      for (const t of entry.topics) subs.add(t);
      return entry;
    };

    const query = (e: Entry) => {
      if (!link?.connected || !owns(e.device.protocolid)) return;
      for (const m of profiles[e.device.profile].query(e.device))
        link.publish(m.topic, m.payload).catch((err: unknown) => log.debug({ err }, 'query not sent'));
    };

    const apply = (e: Entry, what: Inbound, retain = false) => {
      const pid = e.device.protocolid;
      // Another site's device (seen by discovery, or named by a light of the wrong site): its news is not ours.
      if (!owns(pid)) return;
      if (what.type === 'event') {
        sink.reportSensorEvent(pid, what.event);
        observer?.event?.(pid, what.event);
      } else if (what.type === 'readings') {
        sink.reportReadings?.(pid, what.readings);
      } else if (what.type === 'availability') {
        // A device announcing itself live has just (re)connected: it missed any earlier resync query,
        // or rebooted into its power-on state. A retained replay means it was already there.
        if (what.online && !retain) query(e);
        if (e.online === what.online) return;
        e.online = what.online;
        observer?.availability?.(pid, what.online);
        report();
      } else {
        // The brightness of a light that is off is kept for its next "on", and switches nothing.
        if (what.dimOnly && !e.level?.on) {
          if (what.bri !== undefined && what.bri > 0) e.lastBri = what.bri;
          return;
        }
        const merged: LightLevel = mergeLevel(e, what.on, what.bri);
        const level: LightState = { ...merged, ...colourOfReport(e.level, what) };
        e.level = level;
        if (level.on) e.lastBri = level.bri;
        // A device that reports is present, whatever its last will said before.
        if (e.online !== true) apply(e, { type: 'availability', online: true });
        sink.reportState(pid, level);
        observer?.state?.(pid, level);
        waiters.reported(pid);
      }
    };

    function dispatch(topic: string, payload: Buffer, retain: boolean): void {
      for (const e of table.forTopic(topic) ?? []) {
        try {
          for (const what of profiles[e.device.profile].parse(e.device, topic, payload))
            apply(e, what, retain);
        } catch (err) {
          // One device's garbage never affects another: log (without the payload) and drop.
          if (!(err instanceof PayloadError)) throw err;
          log.warn(
            { device: e.device.protocolid, topic, reason: err.message },
            'dropped a bad device payload',
          );
        }
      }
    }

    const discovery = new Discovery(opts, log, {
      upsert(device, source) {
        const known = table.get(device.protocolid);
        const fresh = !known || known.gone;
        const e = put(device, source);
        sink.reportDevices([deviceInfo(device)]);
        observer?.discovered?.(device, source);
        if (fresh) query(e);
        report();
      },
      gone(protocolid) {
        const e = table.get(protocolid);
        if (!e || e.gone) return;
        e.gone = true;
        observer?.gone?.(protocolid);
        report();
      },
      bridgeOnline(base, online) {
        for (const e of table.all())
          if (e.device.profile === 'zigbee2mqtt' && e.device.address.startsWith(`${base}/`))
            apply(e, { type: 'availability', online });
      },
    });

    /** The device a light's command goes to; a device named only by its id takes the light's type. */
    const entryFor = (protocolid: string, light: LightTarget | undefined): Entry => {
      if (!owns(protocolid)) throw new ForeignDeviceError(protocolid);
      const known = table.get(protocolid);
      if (known) return known;
      const device = deviceFromProtocolId(protocolid, opts);
      if (!device) throw new Error(`mqtt: ${protocolid} names no known device or profile`);
      return learn(light && device.kind !== 'sensor' ? { ...device, kind: light.type } : device);
    };

    /** A device named by its id alone (on the site API): watched, remembered by the plugin, asked for state. */
    const learn = (device: MqttDevice): Entry => {
      const e = put(device, 'implicit');
      observer?.discovered?.(device, 'implicit');
      query(e);
      return e;
    };

    return {
      async start() {
        stopped = false;
        if (opts.broker) link = externalLink(opts.broker, log);
        else if (deps.inProcess) link = deps.inProcess();
        else throw new Error('mqtt driver: no broker url and no in-process broker');
        const l = link;
        subs.attach(l);
        const firstConnect = new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.connectWaitMs);
          t.unref();
          l.onStatus((up) => {
            if (stopped || l !== link) return;
            since = new Date().toISOString();
            report();
            if (up) {
              clearTimeout(t);
              resolve();
              for (const e of table.all()) query(e);
            }
          });
        });
        for (const d of opts.devices) put(d, 'configured');
        await discovery.subscribe(l);
        await l.start();
        await firstConnect;
        await subs.ready();
        // The answers to the first resync arrive before start() resolves, not in the middle of a command.
        const asked = table
          .all()
          .filter((e) => owns(e.device.protocolid) && profiles[e.device.profile].query(e.device).length > 0);
        if (l.connected)
          await Promise.all(asked.map((e) => waiters.next(e.device.protocolid, RESYNC_WAIT_MS)));
      },
      async stop() {
        stopped = true;
        const l = link;
        link = null;
        subs.attach(null);
        await l?.stop();
        since = new Date().toISOString();
      },
      async discover({ durationMs }) {
        const before = new Set(
          table
            .all()
            .filter((e) => !e.gone)
            .map((e) => e.device.protocolid),
        );
        if (link?.connected) await discovery.permitJoin(link, durationMs);
        await pause(durationMs, signal);
        return table
          .all()
          .filter((e) => !before.has(e.device.protocolid) && !e.gone)
          .map((e) => deviceInfo(e.device));
      },
      async listDevices() {
        return table.all().map((e) => deviceInfo(e.device));
      },
      async setState(protocolid, level, light) {
        if (!link || stopped) throw new Error('mqtt driver is stopped');
        const e = entryFor(protocolid, light);
        if (e.device.kind === 'sensor') throw new Error(`mqtt: ${protocolid} is a sensor, not a light`);
        // A binary light is switched (POWER ON, a relay), never dimmed, even on a device that could dim.
        const device: MqttDevice = light?.type === 'binary' ? { ...e.device, kind: 'binary' } : e.device;
        for (const m of profiles[device.profile].command(device, level))
          await link.publish(m.topic, m.payload);
      },
      async readState(protocolid) {
        if (!owns(protocolid)) return null;
        const e = table.get(protocolid);
        // Nothing would answer: no link, a profile without a read (HA JSON state is retained), or a device
        // whose last will fired. Lighting reads its lights one by one, so waiting here would add up.
        const silent =
          !e || e.online === false || e.gone || profiles[e.device.profile].query(e.device).length === 0;
        if (silent || !link?.connected) return e?.level ?? null;
        const reported = waiters.next(protocolid, READ_WAIT_MS);
        query(e);
        await reported;
        return e.level;
      },
      connection: () => ({ connected: !stopped && (link?.connected ?? false), since, detail: detail() }),
      watch(devices) {
        for (const d of devices) if (!table.get(d.protocolid) && owns(d.protocolid)) learn(d);
      },
    };
  };
}

/** The driver with external brokers only (tests, other hosts); the plugin adds the in-process link. */
export const createMqttDriver: DriverFactory = createMqttDriverFactory();
