/**
 * Philips Hue twins paired straight to the stick. The dimmer (RWL022) and tap dial (RDM002) have one
 * endpoint with the Philips cluster 0xFC00; each button event is a `hueNotification` (command 0x00,
 * manufacturer 0x100B, server → client): button, three bytes, the press type, then the hold time. The tap
 * dial's rotation is a notification for button 20 and a Level step command. The motion sensor (SML001) is standard ZCL on endpoint 2.
 */
import { Attr, Cluster, LevelCmd } from '../../../../drivers/zigbee/zcl/clusters.ts';
import { DataType } from '../../../../drivers/zigbee/zcl/types.ts';
import { type Outgoing, SimDevice } from '../devices.ts';
import { commandFrom, reportFrom } from './frames.ts';

const SIGNIFY = 'Signify Netherlands B.V.';
const PHILIPS_CODE = 0x100b;
const HUE_CLUSTER = 0xfc00;

export const HUE_IEEE = {
  hueDimmer2: '0x001788010000c001',
  hueTapDial: '0x001788010000c002',
  hueMotion: '0x001788010000c003',
  hueBulbB: '0x001788010000c004',
} as const;

const switchEndpoint = {
  id: 1,
  deviceId: 0x0820,
  inClusters: [Cluster.BASIC, Cluster.POWER_CFG, Cluster.IDENTIFY, HUE_CLUSTER, 0x1000],
  outClusters: [
    0x0019,
    Cluster.BASIC,
    Cluster.IDENTIFY,
    Cluster.GROUPS,
    Cluster.ON_OFF,
    Cluster.LEVEL,
    Cluster.SCENES,
    0x1000,
  ],
};

export const hueDimmer2 = (): SimDevice =>
  new SimDevice('hueDimmer2', HUE_IEEE.hueDimmer2, 0x2c01, 2, SIGNIFY, 'RWL022', [switchEndpoint]);
export const hueTapDial = (): SimDevice =>
  new SimDevice('hueTapDial', HUE_IEEE.hueTapDial, 0x2c02, 2, SIGNIFY, 'RDM002', [switchEndpoint]);

export function hueMotion(): SimDevice {
  return new SimDevice('hueMotion', HUE_IEEE.hueMotion, 0x2c03, 2, SIGNIFY, 'SML001', [
    {
      id: 1,
      deviceId: 0x0850,
      inClusters: [Cluster.BASIC],
      outClusters: [Cluster.BASIC, Cluster.GROUPS, Cluster.ON_OFF, Cluster.LEVEL, Cluster.COLOR],
    },
    {
      id: 2,
      deviceId: 0x0107,
      inClusters: [
        Cluster.BASIC,
        Cluster.POWER_CFG,
        Cluster.IDENTIFY,
        Cluster.ILLUMINANCE,
        Cluster.TEMPERATURE,
        Cluster.OCCUPANCY,
      ],
      outClusters: [0x0019],
    },
  ]);
}

/** A first-generation Hue colour bulb (gamut B), ct 153..500. */
export function hueBulbB(): SimDevice {
  return new SimDevice('hueBulbB', HUE_IEEE.hueBulbB, 0x2c04, 1, 'Philips', 'LCT001', [
    {
      id: 11,
      deviceId: 0x0210,
      inClusters: [
        Cluster.BASIC,
        Cluster.IDENTIFY,
        Cluster.GROUPS,
        Cluster.SCENES,
        Cluster.ON_OFF,
        Cluster.LEVEL,
        Cluster.COLOR,
      ],
      outClusters: [0x0019],
    },
  ])
    .define(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, false)
    .define(Cluster.LEVEL, Attr.LEVEL_CURRENT, DataType.UINT8, 254)
    .define(Cluster.COLOR, Attr.COLOR_CAPABILITIES, DataType.BITMAP16, 0x19)
    .define(Cluster.COLOR, Attr.COLOR_TEMP_MIN, DataType.UINT16, 153)
    .define(Cluster.COLOR, Attr.COLOR_TEMP_MAX, DataType.UINT16, 500);
}

export type HuePress = 'press' | 'hold' | 'press_release' | 'hold_release';
const TYPE: Record<HuePress, number> = { press: 0, hold: 1, press_release: 2, hold_release: 3 };

/** A button event on 0xFC00 (button 1..4). */
export function hueButton(button: number, press: HuePress): Outgoing {
  const payload = Buffer.from([button, 0, 0x30, 0, TYPE[press], 0x21, press === 'hold' ? 8 : 0, 0]);
  return commandFrom(1, HUE_CLUSTER, 0x00, payload, { manufacturerCode: PHILIPS_CODE, fromServer: true });
}

/**
 * The tap dial's ring on 0xFC00: button 20, type 1 (a step) or 2 (a turn), the amount as a signed 16-bit
 * value in the last two bytes, positive clockwise. The dial sends a Level step along with it.
 */
export function dialNotification(amount: number, type: 1 | 2 = 2): Outgoing {
  const payload = Buffer.from([20, 0, 0x30, 0, type, 0x21, 0, 0]);
  payload.writeInt16LE(amount, 6);
  return commandFrom(1, HUE_CLUSTER, 0x00, payload, { manufacturerCode: PHILIPS_CODE, fromServer: true });
}

/** The tap dial turned: a Level step, up (clockwise) or down. */
export function dialTurn(direction: 'right' | 'left', steps = 8): Outgoing {
  return commandFrom(1, Cluster.LEVEL, LevelCmd.STEP, Buffer.of(direction === 'right' ? 0 : 1, steps, 2, 0));
}

/** The motion sensor's reports on endpoint 2: illuminance (ZCL log scale), temperature, occupancy. */
export function hueMotionReports(o: { lux?: number; celsius?: number; occupied?: boolean }): Outgoing[] {
  const out: Outgoing[] = [];
  if (o.lux !== undefined)
    out.push(
      reportFrom(2, Cluster.ILLUMINANCE, [
        {
          attr: Attr.MEASURED_VALUE,
          type: DataType.UINT16,
          value: Math.round(10_000 * Math.log10(o.lux) + 1),
        },
      ]),
    );
  if (o.celsius !== undefined)
    out.push(
      reportFrom(2, Cluster.TEMPERATURE, [
        { attr: Attr.MEASURED_VALUE, type: DataType.INT16, value: Math.round(o.celsius * 100) },
      ]),
    );
  if (o.occupied !== undefined)
    out.push(
      reportFrom(2, Cluster.OCCUPANCY, [
        { attr: Attr.OCCUPANCY, type: DataType.BITMAP8, value: o.occupied ? 1 : 0 },
      ]),
    );
  return out;
}

export function hueBattery(ep: number, percent: number): Outgoing {
  return reportFrom(ep, Cluster.POWER_CFG, [
    { attr: Attr.BATTERY_PERCENT, type: DataType.UINT8, value: Math.round(percent * 2) },
  ]);
}
