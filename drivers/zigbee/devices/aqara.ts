/**
 * Aqara / Xiaomi ("LUMI") devices. They are sleepy end devices that bend the ZCL: no configure-reporting
 * (they ignore it, or sleep before answering), a heartbeat struct in the Basic cluster (battery voltage),
 * button clicks as multistate values or On/Off attribute reports, and a motion sensor that never reports
 * the end of motion. They drop off a network whose router does not keep them as children; Hearth keeps
 * their record and sensor when they rejoin, and shows them as silent after three missed heartbeats.
 */
import type { SensorReadings } from '../../lighting/index.ts';
import { Attr, Cluster } from '../zcl/clusters.ts';
import type { AttrRecord } from '../zcl/foundation.ts';
import { batteryFromMillivolts } from './readings.ts';
import type { DeviceDefinition, FrameContext, Output } from './types.ts';
import { decodeXiaomiStruct, XIAOMI_STRUCT_ATTR, XiaomiTag } from './xiaomi-struct.ts';

/** Multistate `PresentValue` of Aqara buttons. */
const CLICKS: Record<number, string> = {
  0: 'hold',
  1: 'single',
  2: 'double',
  3: 'triple',
  4: 'quadruple',
  255: 'release',
};
/** The older mini switch (lumi.sensor_switch.aq2) counts fast clicks in On/Off attribute 0x8000. */
const MULTI_CLICK_ATTR = 0x8000;
const COUNT: Record<number, string> = { 2: 'double', 3: 'triple', 4: 'quadruple' };

/** Wall switches: the button endpoints (decoupled mode) and the suffix zigbee2mqtt gives their actions. */
const BUTTON_ENDPOINTS: Record<number, string> = { 4: 'left', 5: 'right', 6: 'both' };

/** The heartbeat's battery, and what the model puts in it besides. */
function heartbeat(records: AttrRecord[], weather: boolean): Output | undefined {
  const r = records.find((x) => x.attr === XIAOMI_STRUCT_ATTR && x.raw);
  if (!r?.raw) return undefined;
  const s = decodeXiaomiStruct(r.raw);
  const readings: SensorReadings = {};
  const mv = s.get(XiaomiTag.VOLTAGE);
  if (typeof mv === 'number') {
    readings.voltage = mv;
    readings.battery = batteryFromMillivolts(mv);
  }
  const lux = s.get(XiaomiTag.ILLUMINANCE);
  if (typeof lux === 'number' && !weather) readings.illuminance = lux;
  if (weather) {
    const t = s.get(XiaomiTag.FIRST_VALUE);
    const h = s.get(XiaomiTag.HUMIDITY);
    const p = s.get(XiaomiTag.PRESSURE);
    if (typeof t === 'number' && t > -4000 && t < 12_500) readings.temperature = t / 100;
    if (typeof h === 'number' && h <= 10_000) readings.humidity = h / 100;
    if (typeof p === 'number' && p > 0) readings.pressure = Math.round(p / 10) / 10;
  }
  return { readings };
}

/** Basic cluster reports carry the heartbeat; the rest of Basic (model id, version) is nothing to show. */
function basic(cluster: number, records: AttrRecord[], weather = false): Output | undefined {
  if (cluster !== Cluster.BASIC) return undefined;
  return heartbeat(records, weather) ?? {};
}

const multistate = (records: AttrRecord[], suffix = ''): Output | undefined => {
  const v = records.find((r) => r.attr === Attr.PRESENT_VALUE)?.value;
  const action = typeof v === 'number' ? CLICKS[v] : undefined;
  return action ? { events: [`${action}${suffix}`] } : {};
};

const miniSwitch: DeviceDefinition = {
  vendor: 'Aqara',
  models: [
    {
      zigbeeModel: ['lumi.sensor_switch.aq2', 'lumi.remote.b1acn01'],
      model: 'WXKG11LM',
      description: 'wireless mini switch',
    },
  ],
  kind: 'sensor',
  events: ['single', 'double', 'triple', 'quadruple', 'hold', 'release'],
  readings: ['battery', 'voltage', 'linkquality'],
  checkInSeconds: 3 * 3600,
  setUp: false,
  attributes(cluster, records) {
    if (cluster === Cluster.MULTISTATE_INPUT) return multistate(records);
    if (cluster === Cluster.ON_OFF) {
      const count = records.find((r) => r.attr === MULTI_CLICK_ATTR)?.value;
      if (typeof count === 'number') return { events: [COUNT[count] ?? 'quadruple'] };
      // A press is On/Off going false (its release, true, follows at once and means nothing).
      const state = records.find((r) => r.attr === Attr.ON_OFF)?.value;
      return state === false ? { events: ['single'] } : {};
    }
    return basic(cluster, records);
  },
};

/** The button's suffix from its endpoint, or '' for the one-button model. */
function wallButton(ctx: FrameContext, twoGang: boolean): string | null {
  const side = BUTTON_ENDPOINTS[ctx.endpoint];
  if (!side) return null;
  return twoGang ? `_${side}` : '';
}

const wallSwitch = (twoGang: boolean): DeviceDefinition => ({
  vendor: 'Aqara',
  models: twoGang
    ? [
        {
          zigbeeModel: ['lumi.ctrl_neutral2'],
          model: 'QBKG03LM',
          description: 'wall switch, two buttons, no neutral',
        },
        {
          zigbeeModel: ['lumi.switch.b2lacn02'],
          model: 'QBKG22LM',
          description: 'D1 wall switch, two buttons, no neutral',
        },
      ]
    : [
        {
          zigbeeModel: ['lumi.ctrl_neutral1'],
          model: 'QBKG04LM',
          description: 'wall switch, one button, no neutral',
        },
        {
          zigbeeModel: ['lumi.switch.b1lacn02'],
          model: 'QBKG21LM',
          description: 'D1 wall switch, one button, no neutral',
        },
      ],
  // Without a neutral the relay cannot dim and is usually wired to the lamp anyway: Hearth uses the
  // buttons (in decoupled mode) as a remote.
  kind: 'sensor',
  events: (twoGang ? ['_left', '_right', '_both'] : ['']).flatMap((s) =>
    ['single', 'double', 'hold', 'release'].map((a) => `${a}${s}`),
  ),
  readings: ['linkquality'],
  setUp: false,
  attributes(cluster, records, ctx) {
    const suffix = wallButton(ctx, twoGang);
    if (cluster === Cluster.MULTISTATE_INPUT && suffix !== null) return multistate(records, suffix);
    if (cluster === Cluster.ON_OFF) {
      // The relays (endpoints 2 and 3) report their state: not a button.
      if (suffix === null) return {};
      const state = records.find((r) => r.attr === Attr.ON_OFF)?.value;
      return state === false ? { events: [`single${suffix}`] } : {};
    }
    return basic(cluster, records);
  },
});

const motion: DeviceDefinition = {
  vendor: 'Aqara',
  models: [{ zigbeeModel: ['lumi.sensor_motion.aq2'], model: 'RTCGQ11LM', description: 'motion sensor' }],
  kind: 'sensor',
  events: ['motion', 'no_motion'],
  readings: ['illuminance', 'battery', 'voltage', 'linkquality'],
  checkInSeconds: 3 * 3600,
  setUp: false,
  // The sensor sends occupancy 1 and nothing when motion ends; it is blind for a minute after each report.
  noMotionAfterSeconds: 90,
  attributes(cluster, records) {
    // Illuminance comes as lux already, not ZCL's logarithmic scale.
    if (cluster === Cluster.ILLUMINANCE) {
      const v = records.find((r) => r.attr === Attr.MEASURED_VALUE)?.value;
      return typeof v === 'number' ? { readings: { illuminance: v } } : {};
    }
    return basic(cluster, records);
  },
};

const contact: DeviceDefinition = {
  vendor: 'Aqara',
  models: [
    { zigbeeModel: ['lumi.sensor_magnet.aq2'], model: 'MCCGQ11LM', description: 'door and window sensor' },
  ],
  // Its state is an On/Off server attribute: without this it would look like a plug.
  kind: 'sensor',
  events: ['open', 'closed'],
  readings: ['battery', 'voltage', 'linkquality'],
  checkInSeconds: 3 * 3600,
  setUp: false,
  attributes(cluster, records) {
    if (cluster === Cluster.ON_OFF) {
      const v = records.find((r) => r.attr === Attr.ON_OFF)?.value;
      return v === undefined ? {} : { events: [v === true || v === 1 ? 'open' : 'closed'] };
    }
    return basic(cluster, records);
  },
};

/** Pressure's `ScaledValue` (0x0010) with `Scale` −1 is tenths of a hPa; preferred when present. */
const SCALED_PRESSURE = 0x0010;

const weather: DeviceDefinition = {
  vendor: 'Aqara',
  models: [
    {
      zigbeeModel: ['lumi.weather'],
      model: 'WSDCGQ11LM',
      description: 'temperature, humidity and pressure sensor',
    },
  ],
  kind: 'sensor',
  events: [],
  readings: ['temperature', 'humidity', 'pressure', 'battery', 'voltage', 'linkquality'],
  checkInSeconds: 3 * 3600,
  setUp: false,
  attributes(cluster, records) {
    if (cluster === Cluster.PRESSURE) {
      const scaled = records.find((r) => r.attr === SCALED_PRESSURE)?.value;
      if (typeof scaled === 'number') return { readings: { pressure: scaled / 10 } };
      return undefined;
    }
    return basic(cluster, records, true);
  },
};

export const aqara: DeviceDefinition[] = [
  miniSwitch,
  wallSwitch(false),
  wallSwitch(true),
  motion,
  contact,
  weather,
];
