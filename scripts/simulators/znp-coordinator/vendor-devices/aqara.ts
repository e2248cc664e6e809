/**
 * Aqara / Xiaomi twins: what the real devices send. Manufacturer `LUMI`, model ids `lumi.*`; reports come
 * without any configure-reporting; the hourly heartbeat is Basic attribute 0xFF01 (a struct of
 * `tag | type | value`, docs/zigbee.md#the-device-table); clicks are multistate `PresentValue` or On/Off
 * reports; the motion sensor reports occupancy 1 and never 0.
 */

import { encodeXiaomiStruct } from '../../../../drivers/zigbee/devices/xiaomi-struct.ts';
import { Attr, Cluster } from '../../../../drivers/zigbee/zcl/clusters.ts';
import { DataType } from '../../../../drivers/zigbee/zcl/types.ts';
import { type Outgoing, SimDevice } from '../devices.ts';
import { reportFrom, reportPayload } from './frames.ts';

const XIAOMI_CLUSTER = 0xffff;
const u16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(v);
  return b;
};
const i16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16LE(v);
  return b;
};
const i32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  return b;
};

export const AQARA_IEEE = {
  aqaraMiniSwitch: '0x00158d0000000a01',
  aqaraWallSwitch: '0x00158d0000000a02',
  aqaraMotion: '0x00158d0000000a03',
  aqaraContact: '0x00158d0000000a04',
  aqaraWeather: '0x00158d0000000a05',
} as const;

export function aqaraMiniSwitch(): SimDevice {
  return new SimDevice(
    'aqaraMiniSwitch',
    AQARA_IEEE.aqaraMiniSwitch,
    0x2a01,
    2,
    'LUMI',
    'lumi.remote.b1acn01',
    [
      {
        id: 1,
        deviceId: 0x0006,
        inClusters: [Cluster.BASIC, Cluster.IDENTIFY, XIAOMI_CLUSTER, Cluster.MULTISTATE_INPUT],
        outClusters: [
          Cluster.BASIC,
          Cluster.GROUPS,
          Cluster.IDENTIFY,
          XIAOMI_CLUSTER,
          Cluster.MULTISTATE_INPUT,
        ],
      },
    ],
  );
}

/** Two-button wall switch without neutral: relays on endpoints 2 and 3, buttons (decoupled) on 4, 5 and 6 (both). */
export function aqaraWallSwitch(): SimDevice {
  const button = (id: number) => ({ id, deviceId: 0x0000, inClusters: [Cluster.ON_OFF], outClusters: [] });
  return new SimDevice(
    'aqaraWallSwitch',
    AQARA_IEEE.aqaraWallSwitch,
    0x2a02,
    2,
    'LUMI',
    'lumi.ctrl_neutral2',
    [
      { id: 1, deviceId: 0x0100, inClusters: [Cluster.BASIC, Cluster.IDENTIFY, 0x0002], outClusters: [] },
      { id: 2, deviceId: 0x0100, inClusters: [Cluster.ON_OFF], outClusters: [] },
      { id: 3, deviceId: 0x0100, inClusters: [Cluster.ON_OFF], outClusters: [] },
      button(4),
      button(5),
      button(6),
    ],
  );
}

export function aqaraMotion(): SimDevice {
  return new SimDevice('aqaraMotion', AQARA_IEEE.aqaraMotion, 0x2a03, 2, 'LUMI', 'lumi.sensor_motion.aq2', [
    {
      id: 1,
      deviceId: 0x0107,
      inClusters: [Cluster.BASIC, XIAOMI_CLUSTER, Cluster.OCCUPANCY, Cluster.ILLUMINANCE, Cluster.IDENTIFY],
      outClusters: [Cluster.BASIC, 0x0019],
    },
  ]);
}

export function aqaraContact(): SimDevice {
  return new SimDevice('aqaraContact', AQARA_IEEE.aqaraContact, 0x2a04, 2, 'LUMI', 'lumi.sensor_magnet.aq2', [
    {
      id: 1,
      deviceId: 0x5f01,
      inClusters: [Cluster.BASIC, Cluster.IDENTIFY, XIAOMI_CLUSTER, Cluster.ON_OFF],
      outClusters: [Cluster.BASIC, Cluster.GROUPS, XIAOMI_CLUSTER],
    },
  ]);
}

export function aqaraWeather(): SimDevice {
  return new SimDevice('aqaraWeather', AQARA_IEEE.aqaraWeather, 0x2a05, 2, 'LUMI', 'lumi.weather', [
    {
      id: 1,
      deviceId: 0x5f01,
      inClusters: [
        Cluster.BASIC,
        Cluster.IDENTIFY,
        XIAOMI_CLUSTER,
        Cluster.TEMPERATURE,
        Cluster.PRESSURE,
        Cluster.HUMIDITY,
      ],
      outClusters: [Cluster.BASIC, Cluster.GROUPS, XIAOMI_CLUSTER],
    },
  ]);
}

/** What a heartbeat carries besides the battery. */
export interface Heartbeat {
  millivolts: number;
  lux?: number;
  /** °C, % and Pa, for the weather sensor. */
  temperature?: number;
  humidity?: number;
  pascal?: number;
}

/** The 0xFF01 heartbeat on the Basic cluster (a character string holding the struct). */
export function heartbeat(h: Heartbeat): Outgoing {
  const entries: Array<{ tag: number; type: number; bytes: Buffer }> = [
    { tag: 0x01, type: DataType.UINT16, bytes: u16(h.millivolts) },
    { tag: 0x03, type: DataType.INT8, bytes: Buffer.of(24) },
    { tag: 0x04, type: DataType.UINT16, bytes: u16(0x17a8) },
    { tag: 0x05, type: DataType.UINT16, bytes: u16(3) },
    { tag: 0x06, type: DataType.UINT40, bytes: Buffer.alloc(5) },
    { tag: 0x0a, type: DataType.UINT16, bytes: u16(0) },
  ];
  if (h.lux !== undefined) entries.push({ tag: 0x0b, type: DataType.UINT16, bytes: u16(h.lux) });
  if (h.temperature !== undefined)
    entries.push({ tag: 0x64, type: DataType.INT16, bytes: i16(Math.round(h.temperature * 100)) });
  if (h.humidity !== undefined)
    entries.push({ tag: 0x65, type: DataType.UINT16, bytes: u16(Math.round(h.humidity * 100)) });
  if (h.pascal !== undefined) entries.push({ tag: 0x66, type: DataType.INT32, bytes: i32(h.pascal) });
  const struct = encodeXiaomiStruct(entries);
  // Typed as a character string (0x42) although its bytes are binary.
  const head = Buffer.of(0x01, 0xff, DataType.CHAR_STR, struct.length);
  return reportPayload(1, Cluster.BASIC, Buffer.concat([head, struct]));
}

const CLICK: Record<string, number> = {
  hold: 0,
  single: 1,
  double: 2,
  triple: 3,
  quadruple: 4,
  release: 255,
};

/** The mini switch's click: multistate `PresentValue`. */
export function click(action: keyof typeof CLICK | string): Outgoing {
  return reportFrom(1, Cluster.MULTISTATE_INPUT, [
    { attr: Attr.PRESENT_VALUE, type: DataType.UINT16, value: CLICK[action] ?? 1 },
  ]);
}

/** A wall switch button pressed in decoupled mode: its endpoint reports On/Off false. */
export function wallPress(side: 'left' | 'right' | 'both'): Outgoing {
  const ep = { left: 4, right: 5, both: 6 }[side];
  return reportFrom(ep, Cluster.ON_OFF, [{ attr: Attr.ON_OFF, type: DataType.BOOL, value: false }]);
}

/** The motion sensor: illuminance (lux as it is) then occupancy 1, as the real one sends them. */
export function motionDetected(lux: number): Outgoing[] {
  return [
    reportFrom(1, Cluster.ILLUMINANCE, [{ attr: Attr.MEASURED_VALUE, type: DataType.UINT16, value: lux }]),
    reportFrom(1, Cluster.OCCUPANCY, [{ attr: Attr.OCCUPANCY, type: DataType.BITMAP8, value: 1 }]),
  ];
}

export function contactState(open: boolean): Outgoing {
  return reportFrom(1, Cluster.ON_OFF, [{ attr: Attr.ON_OFF, type: DataType.BOOL, value: open }]);
}

/** The weather sensor's three reports: temperature, humidity, pressure (hPa and the scaled tenths). */
export function weatherReports(celsius: number, humidity: number, hpa: number): Outgoing[] {
  return [
    reportFrom(1, Cluster.TEMPERATURE, [
      { attr: Attr.MEASURED_VALUE, type: DataType.INT16, value: Math.round(celsius * 100) },
    ]),
    reportFrom(1, Cluster.HUMIDITY, [
      { attr: Attr.MEASURED_VALUE, type: DataType.UINT16, value: Math.round(humidity * 100) },
    ]),
    reportFrom(1, Cluster.PRESSURE, [
      { attr: Attr.MEASURED_VALUE, type: DataType.INT16, value: Math.round(hpa) },
      { attr: 0x0014, type: DataType.INT8, value: -1 },
      { attr: 0x0010, type: DataType.INT16, value: Math.round(hpa * 10) },
    ]),
  ];
}
