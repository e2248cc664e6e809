/**
 * A zigbee2mqtt bridge (docs/mqtt-devices.md#zigbee2mqtt) with dimmable bulbs and wall switches: retained `bridge/state`,
 * `bridge/devices` and per-device availability; `<name>/set` and `<name>/get` for bulbs (brightness
 * 0..254); switches publish `{"action":"on"}` then clear it with `""`, as zigbee2mqtt does. A `plug` is an
 * on/off device: a `brightness` sent to it is refused the way zigbee2mqtt does (an error on
 * `bridge/logging`), counted in `errors`. A `colour` bulb also exposes `color_temp` (153–500 mireds) and
 * `color_xy`, takes `color_temp` and `color` `{x, y}` or `{hue, saturation}`, and reports `color_mode`.
 */
import { hsToXy } from '../../drivers/lighting/index.ts';
import {
  answer,
  type ColourCommandKind,
  connected,
  connectSim,
  extend,
  type SimDevice,
  type SimOptions,
  simDevice,
} from './common.ts';

export interface Z2mDeviceSpec {
  name: string;
  type: 'bulb' | 'switch' | 'plug' | 'colour';
}

export interface Z2mBulbState {
  state: 'ON' | 'OFF';
  brightness: number;
  color_mode?: 'color_temp' | 'xy';
  color_temp?: number;
  color?: { x: number; y: number };
}

export interface Zigbee2mqttSim extends SimDevice {
  bulb(name: string): Z2mBulbState;
  press(name: string, action: string): Promise<void>;
  /** Republishes `bridge/devices` without the named devices (they left the network). */
  remove(name: string): Promise<void>;
  readonly permitJoins: number;
  /** Commands zigbee2mqtt would have logged as errors (`No converter available for 'brightness'`). */
  readonly errors: string[];
  /** The colour commands a bulb received (`color_temp` → `ct`, `color` → `xy`), oldest first. */
  colourCommands(name: string): ColourCommandKind[];
}

const COLOUR_FEATURES = [
  { name: 'color_temp', property: 'color_temp', value_min: 153, value_max: 500, unit: 'mired' },
  { name: 'color_xy', property: 'color', type: 'composite' },
];

const exposes = (type: Z2mDeviceSpec['type']) =>
  type === 'colour'
    ? [
        {
          type: 'light',
          features: [
            { name: 'state', property: 'state' },
            { name: 'brightness', property: 'brightness', value_max: 254 },
            ...COLOUR_FEATURES,
          ],
        },
      ]
    : type === 'plug'
      ? [{ type: 'switch', features: [{ name: 'state', property: 'state' }] }]
      : type === 'bulb'
        ? [
            {
              type: 'light',
              features: [
                { name: 'state', property: 'state' },
                { name: 'brightness', property: 'brightness', value_max: 254 },
              ],
            },
          ]
        : [
            {
              type: 'enum',
              name: 'action',
              property: 'action',
              values: ['on', 'off', 'brightness_move_up', 'brightness_move_down'],
            },
          ];

export async function startZigbee2mqtt(
  opts: SimOptions & { base?: string; devices: Z2mDeviceSpec[] },
): Promise<Zigbee2mqttSim> {
  const base = opts.base ?? 'zigbee2mqtt';
  const client = connectSim(opts, `z2m-${Math.random().toString(16).slice(2, 8)}`, {
    topic: `${base}/bridge/state`,
    payload: JSON.stringify({ state: 'offline' }),
    retain: true,
  });
  const sim = simDevice(client);
  let devices = [...opts.devices];
  const bulbs = new Map<string, Z2mBulbState>();
  for (const d of devices)
    if (d.type === 'colour')
      bulbs.set(d.name, {
        state: 'OFF',
        brightness: 254,
        color_mode: 'color_temp',
        color_temp: 370,
        color: { x: 0.4599, y: 0.4106 },
      });
    else if (d.type !== 'switch') bulbs.set(d.name, { state: 'OFF', brightness: 254 });
  const plugs = new Set(devices.filter((d) => d.type === 'plug').map((d) => d.name));
  const errors: string[] = [];
  let permitJoins = 0;
  const colourLog = new Map<string, ColourCommandKind[]>();

  const listing = () => [
    {
      ieee_address: '0x00124b0000000001',
      type: 'Coordinator',
      friendly_name: 'Coordinator',
      definition: null,
    },
    ...devices.map((d, i) => ({
      ieee_address: `0x00158d00000000${(i + 16).toString(16)}`,
      type: d.type === 'switch' ? 'EndDevice' : 'Router',
      friendly_name: d.name,
      interview_completed: true,
      supported: true,
      disabled: false,
      definition: {
        model: { bulb: 'LED1545G12', switch: 'E1743', plug: 'E1603', colour: 'LED1624G9' }[d.type],
        vendor: 'IKEA',
        exposes: exposes(d.type),
      },
    })),
  ];
  const publishBulb = (name: string) => {
    const b = bulbs.get(name);
    return client.publishAsync(`${base}/${name}`, JSON.stringify(plugs.has(name) ? { state: b?.state } : b));
  };

  client.on('connect', () => {
    client.subscribe([`${base}/+/set`, `${base}/+/get`, `${base}/bridge/request/#`]);
    client.publish(`${base}/bridge/state`, JSON.stringify({ state: 'online' }), { retain: true });
    client.publish(`${base}/bridge/devices`, JSON.stringify(listing()), { retain: true });
    for (const d of devices)
      client.publish(`${base}/${d.name}/availability`, JSON.stringify({ state: 'online' }), { retain: true });
  });
  client.on('message', (topic, payload, packet) => {
    sim.record({ topic, payload: payload.toString(), retain: packet.retain });
    if (topic === `${base}/bridge/request/permit_join`) {
      permitJoins++;
      answer(
        client.publishAsync(
          `${base}/bridge/response/permit_join`,
          JSON.stringify({ data: JSON.parse(payload.toString()), status: 'ok' }),
        ),
      );
      return;
    }
    const [, name, verb] = /^.+\/([^/]+)\/(set|get)$/.exec(topic) ?? [];
    const bulb = name ? bulbs.get(name) : undefined;
    if (!bulb || !name) return;
    if (verb === 'set') {
      let body: {
        state?: string;
        brightness?: number;
        color_temp?: number;
        color?: { x?: number; y?: number; hue?: number; saturation?: number };
      };
      try {
        body = JSON.parse(payload.toString());
      } catch {
        return;
      }
      if (body.brightness !== undefined && plugs.has(name)) {
        errors.push(`No converter available for 'brightness' (${JSON.stringify(body.brightness)})`);
        const log = { level: 'error', message: errors.at(-1) };
        answer(client.publishAsync(`${base}/bridge/logging`, JSON.stringify(log)));
      } else if (typeof body.brightness === 'number')
        bulb.brightness = Math.max(0, Math.min(254, body.brightness));
      if (body.state === 'ON' || body.state === 'OFF') bulb.state = body.state;
      const kinds = colourLog.get(name) ?? [];
      colourLog.set(name, kinds);
      if (bulb.color_mode && body.color_temp !== undefined) kinds.push('ct');
      if (bulb.color_mode && body.color !== undefined) kinds.push('xy');
      if (bulb.color_mode && typeof body.color_temp === 'number') {
        bulb.color_temp = Math.max(153, Math.min(500, Math.round(body.color_temp)));
        bulb.color_mode = 'color_temp';
      }
      const c = body.color;
      if (bulb.color_mode && c && typeof c.x === 'number' && typeof c.y === 'number') {
        bulb.color = { x: c.x, y: c.y };
        bulb.color_mode = 'xy';
      } else if (bulb.color_mode && c && typeof c.hue === 'number' && typeof c.saturation === 'number') {
        const [x, y] = hsToXy(c.hue, c.saturation);
        bulb.color = { x, y };
        bulb.color_mode = 'xy';
      }
      if (body.state === 'TOGGLE') bulb.state = bulb.state === 'ON' ? 'OFF' : 'ON';
    }
    answer(publishBulb(name));
  });
  await connected(client);
  return extend(sim, {
    bulb(name: string) {
      const b = bulbs.get(name);
      if (!b) throw new Error(`no bulb ${name}`);
      return { ...b };
    },
    async press(name: string, action: string) {
      await client.publishAsync(`${base}/${name}`, JSON.stringify({ action, battery: 87, linkquality: 120 }));
      await client.publishAsync(
        `${base}/${name}`,
        JSON.stringify({ action: '', battery: 87, linkquality: 120 }),
      );
    },
    async remove(name: string) {
      devices = devices.filter((d) => d.name !== name);
      await client.publishAsync(`${base}/bridge/devices`, JSON.stringify(listing()), { retain: true });
    },
    get permitJoins() {
      return permitJoins;
    },
    errors,
    colourCommands: (name: string) => [...(colourLog.get(name) ?? [])],
  });
}
