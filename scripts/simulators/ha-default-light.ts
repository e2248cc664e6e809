/**
 * A dimmer announced as a Home Assistant MQTT light of the default schema, the way DIY firmwares do it:
 * the retained config on `homeassistant/light/<node>/light/config` (no `schema`, abbreviated keys, `~`
 * base), plain `ON`/`OFF` on `~/light/set` with the retained state on `~/light/state`, the brightness as a
 * plain number on `~/brightness/set` and `~/brightness/state`, presence on `~/status` (last will
 * `offline`). A brightness command leaves the power alone unless it announces `on_command_type:
 * brightness`, where a level above 0 also switches it on.
 */
import {
  answer,
  connected,
  connectSim,
  extend,
  type SimDevice,
  type SimOptions,
  simDevice,
} from './common.ts';

export interface HaDefaultLight extends SimDevice {
  readonly state: { on: boolean; brightness: number };
  /** Publishes a brightness change made at the device (a local dial), without touching the power. */
  dial(brightness: number): Promise<void>;
}

export async function startHaDefaultLight(
  opts: SimOptions & { node: string; scale?: 100 | 255; onCommandType?: 'last' | 'first' | 'brightness' },
): Promise<HaDefaultLight> {
  const base = `diy/${opts.node}`;
  const scale = opts.scale ?? 255;
  const client = connectSim(opts, `${opts.node}-dimmer`, {
    topic: `${base}/status`,
    payload: 'offline',
    retain: true,
  });
  const sim = simDevice(client);
  const state: { on: boolean; brightness: number } = { on: false, brightness: scale };
  const publishState = async () => {
    await client.publishAsync(`${base}/brightness/state`, String(state.brightness), { retain: true });
    await client.publishAsync(`${base}/light/state`, state.on ? 'ON' : 'OFF', { retain: true });
  };
  client.on('connect', () => {
    client.subscribe([`${base}/light/set`, `${base}/brightness/set`]);
    client.publish(`${base}/status`, 'online', { retain: true });
    client.publish(
      `homeassistant/light/${opts.node}/light/config`,
      JSON.stringify({
        '~': base,
        name: `Dimmer ${opts.node}`,
        uniq_id: `${opts.node}-dimmer`,
        cmd_t: '~/light/set',
        stat_t: '~/light/state',
        bri_cmd_t: '~/brightness/set',
        bri_stat_t: '~/brightness/state',
        bri_scl: scale,
        ...(opts.onCommandType ? { on_cmd_type: opts.onCommandType } : {}),
        avty_t: '~/status',
        dev: { ids: [opts.node], name: opts.node },
      }),
      { retain: true },
    );
    answer(publishState());
  });
  client.on('message', (topic, payload, packet) => {
    const text = payload.toString();
    sim.record({ topic, payload: text, retain: packet.retain });
    if (topic === `${base}/light/set` && (text === 'ON' || text === 'OFF')) state.on = text === 'ON';
    if (topic === `${base}/brightness/set` && Number.isFinite(Number(text))) {
      state.brightness = Math.max(0, Math.min(scale, Number(text)));
      if (opts.onCommandType === 'brightness') state.on = state.brightness > 0;
    }
    answer(publishState());
  });
  await connected(client);
  return extend(sim, {
    get state() {
      return { ...state };
    },
    async dial(brightness: number) {
      state.brightness = brightness;
      await client.publishAsync(`${base}/brightness/state`, String(brightness), { retain: true });
    },
  });
}
