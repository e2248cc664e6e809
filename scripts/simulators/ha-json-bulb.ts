/**
 * A bulb that speaks Home Assistant's MQTT JSON light schema (docs/mqtt-devices.md#home-assistant-mqtt-lights), the way ESPHome and many
 * DIY firmwares do: announces itself on `homeassistant/light/<node>/<object>/config` (abbreviated keys,
 * `~` base), takes `{"state","brightness"}` on `~/set`, reports retained on `~/state`, presence on
 * `~/status`. Optionally announces a device trigger for its button. With `colourModes` it declares those
 * `supported_color_modes` (and a 153–454 mired range for `color_temp` or `rgbww`), takes `color_temp`,
 * `color` (`{x,y}`, `{h,s}`, `{r,g,b…}`) and `white` (the white LED's level), and reports `color_mode`.
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

export interface HaJsonState {
  state: 'ON' | 'OFF';
  brightness: number;
  color_mode?: string;
  color_temp?: number;
  color?: Record<string, number>;
}

export interface HaJsonBulb extends SimDevice {
  readonly state: HaJsonState;
  press(): Promise<void>;
  /** Publishes an empty config: Home Assistant's way of removing the entity. */
  unannounce(): Promise<void>;
}

export async function startHaJsonBulb(
  opts: SimOptions & { node: string; scale?: 100 | 255; prefix?: string; colourModes?: string[] },
): Promise<HaJsonBulb> {
  const prefix = opts.prefix ?? 'homeassistant';
  const base = `esphome/${opts.node}`;
  const scale = opts.scale ?? 255;
  const client = connectSim(opts, opts.node, { topic: `${base}/status`, payload: 'offline', retain: true });
  const sim = simDevice(client);
  const modes = opts.colourModes ?? [];
  const state: HaJsonState = { state: 'OFF', brightness: scale };
  if (modes[0]) state.color_mode = modes[0];
  const configTopic = `${prefix}/light/${opts.node}/light/config`;
  const triggerTopic = `${prefix}/device_automation/${opts.node}/button_short/config`;
  const device = { ids: [`esp-${opts.node}`], name: `ESP ${opts.node}` };
  client.on('connect', () => {
    client.subscribe(`${base}/set`);
    client.publish(`${base}/status`, 'online', { retain: true });
    client.publish(
      configTopic,
      JSON.stringify({
        '~': base,
        name: `Lamp ${opts.node}`,
        uniq_id: `${opts.node}-light`,
        schema: 'json',
        cmd_t: '~/set',
        stat_t: '~/state',
        avty_t: '~/status',
        brightness: true,
        bri_scl: scale,
        sup_clrm: modes.length ? modes : ['brightness'],
        ...(modes.includes('color_temp') || modes.includes('rgbww') ? { min_mirs: 153, max_mirs: 454 } : {}),
        dev: device,
      }),
      { retain: true },
    );
    client.publish(
      triggerTopic,
      JSON.stringify({
        atype: 'trigger',
        t: `${base}/button`,
        pl: 'short',
        type: 'button_short_press',
        stype: 'button_1',
        dev: device,
      }),
      { retain: true },
    );
    client.publish(`${base}/state`, JSON.stringify(state), { retain: true });
  });
  client.on('message', (topic, payload, packet) => {
    sim.record({ topic, payload: payload.toString(), retain: packet.retain });
    try {
      const body = JSON.parse(payload.toString()) as {
        state?: string;
        brightness?: number;
        color_temp?: number;
        color?: Record<string, number>;
        white?: number;
      };
      if (typeof body.color_temp === 'number' && modes.includes('color_temp')) {
        state.color_temp = body.color_temp;
        state.color_mode = 'color_temp';
        delete state.color;
      }
      if (body.color && typeof body.color === 'object') {
        const keys = Object.keys(body.color).sort().join('');
        const mode = { xy: 'xy', hs: 'hs', bgr: 'rgb', bgrw: 'rgbw', bcgrw: 'rgbww' }[keys];
        if (mode && modes.includes(mode)) {
          state.color = body.color;
          state.color_mode = mode;
        }
      }
      if (typeof body.brightness === 'number')
        state.brightness = Math.max(0, Math.min(scale, body.brightness));
      // HA `white`: the white LED at that level (white_scale 255), instead of colour and brightness
      if (typeof body.white === 'number' && modes.includes('white')) {
        state.color_mode = 'white';
        state.brightness = Math.round((Math.max(0, Math.min(255, body.white)) / 255) * scale);
        delete state.color;
        delete state.color_temp;
      }
      if (body.state === 'ON' || body.state === 'OFF') state.state = body.state;
    } catch {
      return;
    }
    answer(client.publishAsync(`${base}/state`, JSON.stringify(state), { retain: true }));
  });
  await connected(client);
  return extend(sim, {
    get state() {
      return { ...state };
    },
    async press() {
      await client.publishAsync(`${base}/button`, 'short');
    },
    async unannounce() {
      await client.publishAsync(configTopic, '', { retain: true });
    },
  });
}
