/**
 * The `hue` lighting driver: one instance per bridge. Full state at start and after every reconnect, the
 * event stream for everything that changes afterwards (the Hue app, Hue switches, other controllers),
 * commands through the limiter (docs/hue.md#limits-of-the-bridge).
 */
import type {
  ConnectionStatus,
  DeviceInfo,
  DriverInit,
  GroupTarget,
  LightCommand,
  LightingDriver,
  LightState,
  LightTarget,
} from '../lighting/index.ts';
import { ClipClient } from './client.ts';
import { EventStreamReader, type HueEvent } from './events.ts';
import { CommandLimiter } from './limiter.ts';
import { commandBody, GROUP_PREFIX, HueModel, lightState, sensorEvent } from './mapping.ts';
import { type HueDriverOptions, parseHueOptions } from './options.ts';

export interface HueDriver extends LightingDriver {
  /** The bridge's scenes, for the plugin's routes. */
  scenes(): Array<{ id: string; name: string; group: string | undefined }>;
  recallScene(sceneId: string): Promise<void>;
  setGroupState(group: GroupTarget, cmd: LightCommand): Promise<void>;
  readState(protocolid: string): Promise<LightState | null>;
  readonly limiterStats: { sent: number; merged: number; retried: number };
}

export function createHueDriver(init: DriverInit): HueDriver {
  const opts: HueDriverOptions = parseHueOptions(init.options);
  const { sink, log } = init;
  const model = new HueModel();
  let status: ConnectionStatus = { connected: false, since: new Date().toISOString() };
  let client: ClipClient | null = null;
  let limiter: CommandLimiter | null = null;
  let stream: EventStreamReader | null = null;
  let stopped = false;
  const stats = { sent: 0, merged: 0, retried: 0 };

  const setConnected = (connected: boolean, reason?: string) => {
    if (status.connected === connected && connected) return;
    const detail = {
      bridgeId: opts.bridgeId,
      ...(client ? client.address : {}),
      ...(reason ? { reason } : {}),
    };
    status = { connected, since: new Date().toISOString(), detail };
    sink.reportConnection({ connected, detail });
  };

  const resync = async () => {
    const all = await (client as ClipClient).getAll();
    model.load(all);
    sink.reportDevices(model.devices());
    sink.reportScenes?.(model.deviceScenes());
    for (const light of model.ofType('light')) sink.reportState(light.id, lightState(light));
    for (const gl of model.ofType('grouped_light')) sink.reportState(GROUP_PREFIX + gl.id, lightState(gl));
  };

  const onEvents = (events: HueEvent[]) => {
    // A scene added, removed, renamed or changed (its recall only changes its status: not reported).
    let scenesChanged = false;
    for (const event of events) {
      if (event.type === 'add' || event.type === 'delete') {
        model.apply(event);
        sink.reportDevices(model.devices());
        scenesChanged ||= event.data.some((d) => d?.type === 'scene');
        continue;
      }
      for (const item of event.data) {
        if (item?.type === 'scene' && (item.metadata !== undefined || item.actions !== undefined))
          scenesChanged = true;
        const [now] = model.apply({ type: event.type, data: [item] });
        if (!now) continue;
        if (now.type === 'light') sink.reportState(now.id, lightState(now));
        else if (now.type === 'grouped_light') sink.reportState(GROUP_PREFIX + now.id, lightState(now));
        else {
          const e = sensorEvent(now, item);
          if (e) sink.reportSensorEvent(e.protocolid, e.event);
        }
      }
    }
    if (scenesChanged) sink.reportScenes?.(model.deviceScenes());
  };

  const refind = async () => {
    if (!opts.refind || !client || stopped) return;
    const found = await opts.refind(opts.bridgeId).catch(() => null);
    const at = client.address;
    if (found && (found.host !== at.host || found.port !== at.port) && !stopped) {
      log.info(
        { bridge: opts.bridgeId, host: found.host, port: found.port },
        'Hue bridge found at a new address',
      );
      client.setAddress(found.host, found.port);
      stream?.reconnect();
    }
  };

  const driver: HueDriver = {
    get limiterStats() {
      return limiter ? limiter.stats : stats;
    },
    async start() {
      stopped = false;
      client = new ClipClient({ host: opts.host, port: opts.port, appKey: opts.appKey, trust: opts });
      const c = client;
      limiter = new CommandLimiter((type, id, body) => c.put(type, id, body), opts.limiter);
      stream = new EventStreamReader({
        open: () => c.openEventStream(),
        onUp: async () => {
          await resync();
          setConnected(true);
        },
        onDown: (reason) => {
          log.warn({ bridge: opts.bridgeId, reason }, 'Hue bridge event stream down');
          setConnected(false, reason);
          void refind();
        },
        onEvents,
        readTimeoutMs: opts.readTimeoutMs,
        backoffStepMs: opts.backoffStepMs,
        backoffMaxMs: opts.backoffMaxMs,
      });
      await stream.start();
    },
    async stop() {
      stopped = true;
      stream?.stop();
      limiter?.close();
      client?.close();
      if (status.connected) setConnected(false, 'stopped');
    },
    async discover() {
      // A bridge pairs its own devices (the Hue app); here a fresh listing finds what it added.
      if (client && status.connected) await resync();
      return model.devices();
    },
    async listDevices(): Promise<DeviceInfo[]> {
      return model.devices();
    },
    async setState(protocolid: string, cmd: LightCommand, target?: LightTarget) {
      if (stopped || !limiter) throw new Error('the Hue driver is not running');
      if (protocolid.startsWith(GROUP_PREFIX)) {
        const id = protocolid.slice(GROUP_PREFIX.length);
        if (model.get(id)?.type !== 'grouped_light') throw new Error(`no Hue room or zone ${protocolid}`);
        return limiter.submit('grouped_light', id, commandBody(cmd, undefined, target?.type === 'binary'));
      }
      const light = model.get(protocolid);
      if (light?.type !== 'light') throw new Error(`no Hue light ${protocolid}`);
      const binary = target?.type === 'binary' || !light.dimming;
      return limiter.submit('light', protocolid, commandBody(cmd, light, binary));
    },
    /**
     * A Hearth group whose lights are exactly a Hue room or zone is one `grouped_light` command (the
     * bridge takes about one a second: the limiter spaces them); any other set of lights gets one
     * command per light, each through the limiter as usual (docs/hue.md#groups).
     */
    async setGroupState(group: GroupTarget, cmd: LightCommand) {
      if (stopped || !limiter) throw new Error('the Hue driver is not running');
      const lights = new Set(group.members.map((m) => m.protocolid));
      const gl = model.groupedLightFor(lights);
      if (gl) {
        const binary = group.members.every((m) => m.light.type === 'binary');
        return limiter.submit('grouped_light', gl, commandBody(cmd, undefined, binary));
      }
      await Promise.all(group.members.map((m) => driver.setState(m.protocolid, cmd, m.light)));
    },
    /**
     * From the bridge's listing, current through the event stream; a light or room the model has never
     * seen (added while the stream was reconnecting) is asked for with a GET of its resource.
     */
    async readState(protocolid: string): Promise<LightState | null> {
      const group = protocolid.startsWith(GROUP_PREFIX);
      const id = group ? protocolid.slice(GROUP_PREFIX.length) : protocolid;
      let r = model.get(id);
      if (!r && client && status.connected && !stopped) {
        const fetched = await client.getResource(group ? 'grouped_light' : 'light', id);
        if (fetched) {
          model.apply({ type: 'add', data: [fetched] });
          sink.reportDevices(model.devices());
          r = model.get(id);
        }
      }
      return r && (r.type === 'light' || r.type === 'grouped_light') ? lightState(r) : null;
    },
    connection: () => status,
    scenes: () => model.scenes(),
    async recallScene(sceneId: string) {
      if (stopped || !limiter) throw new Error('the Hue driver is not running');
      if (model.get(sceneId)?.type !== 'scene') throw new Error(`no Hue scene ${sceneId}`);
      await limiter.submit('scene', sceneId, { recall: { action: 'active' } });
    },
  };
  return driver;
}
