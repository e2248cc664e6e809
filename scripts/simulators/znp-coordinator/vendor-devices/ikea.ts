/**
 * IKEA TRÅDFRI twins. Remotes send to the coordinator once bound (On/Off, Level, Scenes out clusters on
 * endpoint 1) and report their battery (Power Configuration, half-percent units) once it is configured.
 * The arrows are Scenes commands with manufacturer code 0x117C: 0x07 click (257 left, 256 right),
 * 0x08 hold (3329 left, 3328 right), 0x09 release (the hold's duration, no direction).
 */
import { Attr, Cluster, LevelCmd, OnOffCmd } from '../../../../drivers/zigbee/zcl/clusters.ts';
import { DataType } from '../../../../drivers/zigbee/zcl/types.ts';
import { type Outgoing, SimDevice, type SimEndpoint } from '../devices.ts';
import { commandFrom, reportFrom } from './frames.ts';

const IKEA = 'IKEA of Sweden';
const IKEA_CODE = 0x117c;

export const IKEA_IEEE = {
  ikeaRemote: '0x000b57fffe00b001',
  ikeaOnOff: '0x000b57fffe00b002',
  ikeaStyrbar: '0x000b57fffe00b003',
  ikeaShortcut: '0x000b57fffe00b004',
  ikeaBulb: '0x000b57fffe00b005',
} as const;

const remoteEndpoint = (deviceId: number): SimEndpoint => ({
  id: 1,
  deviceId,
  inClusters: [Cluster.BASIC, Cluster.POWER_CFG, Cluster.IDENTIFY, 0x0020, 0x1000],
  outClusters: [
    Cluster.IDENTIFY,
    Cluster.GROUPS,
    Cluster.SCENES,
    Cluster.ON_OFF,
    Cluster.LEVEL,
    0x0019,
    0x1000,
  ],
});

const remote = (name: keyof typeof IKEA_IEEE, nwk: number, model: string, deviceId: number): SimDevice =>
  new SimDevice(name, IKEA_IEEE[name], nwk, 2, IKEA, model, [remoteEndpoint(deviceId)]).define(
    Cluster.POWER_CFG,
    Attr.BATTERY_PERCENT,
    DataType.UINT8,
    200,
  );

export const ikeaRemote = () => remote('ikeaRemote', 0x2b01, 'TRADFRI remote control', 0x0820);
export const ikeaOnOff = () => remote('ikeaOnOff', 0x2b02, 'TRADFRI on/off switch', 0x0820);
export const ikeaStyrbar = () => remote('ikeaStyrbar', 0x2b03, 'Remote Control N2', 0x0820);
export const ikeaShortcut = () => remote('ikeaShortcut', 0x2b04, 'TRADFRI SHORTCUT Button', 0x0820);

/** A white-spectrum bulb whose older firmware reports no colour temperature range. */
export function ikeaBulb(): SimDevice {
  return new SimDevice('ikeaBulb', IKEA_IEEE.ikeaBulb, 0x2b05, 1, IKEA, 'TRADFRI bulb E27 WS opal 980lm', [
    {
      id: 1,
      deviceId: 0x0220,
      inClusters: [
        Cluster.BASIC,
        Cluster.IDENTIFY,
        Cluster.GROUPS,
        Cluster.SCENES,
        Cluster.ON_OFF,
        Cluster.LEVEL,
        Cluster.COLOR,
        0x1000,
      ],
      outClusters: [0x0005, 0x0019, 0x0020, 0x1000],
    },
  ])
    .define(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, false)
    .define(Cluster.LEVEL, Attr.LEVEL_CURRENT, DataType.UINT8, 254)
    .define(Cluster.COLOR, Attr.COLOR_TEMP, DataType.UINT16, 370)
    .define(Cluster.COLOR, Attr.COLOR_MODE, DataType.ENUM8, 2)
    .define(Cluster.COLOR, Attr.COLOR_CAPABILITIES, DataType.BITMAP16, 0x10);
}

const u16 = (...v: number[]) => {
  const b = Buffer.alloc(v.length * 2);
  v.forEach((x, i) => {
    b.writeUInt16LE(x, i * 2);
  });
  return b;
};

export type IkeaButton =
  | 'toggle'
  | 'on'
  | 'off'
  | 'up_click'
  | 'down_click'
  | 'up_hold'
  | 'down_hold'
  | 'up_release'
  | 'down_release';

/** A standard button command as the IKEA remotes send it. */
export function ikeaButton(b: IkeaButton): Outgoing {
  switch (b) {
    case 'toggle':
      return commandFrom(1, Cluster.ON_OFF, OnOffCmd.TOGGLE);
    case 'on':
      return commandFrom(1, Cluster.ON_OFF, OnOffCmd.ON);
    case 'off':
      return commandFrom(1, Cluster.ON_OFF, OnOffCmd.OFF);
    case 'up_click':
      return commandFrom(1, Cluster.LEVEL, LevelCmd.STEP_ON_OFF, Buffer.of(0, 43, 5, 0));
    case 'down_click':
      return commandFrom(1, Cluster.LEVEL, LevelCmd.STEP, Buffer.of(1, 43, 5, 0));
    case 'up_hold':
      return commandFrom(1, Cluster.LEVEL, LevelCmd.MOVE_ON_OFF, Buffer.of(0, 83));
    case 'down_hold':
      return commandFrom(1, Cluster.LEVEL, LevelCmd.MOVE, Buffer.of(1, 83));
    case 'up_release':
      return commandFrom(1, Cluster.LEVEL, LevelCmd.STOP_ON_OFF);
    case 'down_release':
      return commandFrom(1, Cluster.LEVEL, LevelCmd.STOP);
  }
}

/** An arrow button (E1524/E1810 and STYRBAR). */
export function ikeaArrow(direction: 'left' | 'right', action: 'click' | 'hold' | 'release'): Outgoing {
  const left = direction === 'left';
  const [command, payload] =
    action === 'click'
      ? [0x07, u16(left ? 257 : 256, 13)]
      : action === 'hold'
        ? [0x08, u16(left ? 3329 : 3328, 0)]
        : [0x09, u16(1200)];
  return commandFrom(1, Cluster.SCENES, command, payload, { manufacturerCode: IKEA_CODE });
}

/** The battery report (percentage in half percent). */
export function ikeaBattery(percent: number): Outgoing {
  return reportFrom(1, Cluster.POWER_CFG, [
    { attr: Attr.BATTERY_PERCENT, type: DataType.UINT8, value: Math.round(percent * 2) },
  ]);
}
