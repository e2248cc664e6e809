/**
 * Sonoff SNZB twins (manufacturer `eWeLink`): the button sends On/Off commands from endpoint 1 once bound
 * (toggle single, on double, off long); the climate sensor reports temperature and humidity; the motion
 * and door sensors are IAS zones (the door sensor asks to be enrolled, the motion sensor waits for the
 * response). All report battery percentage (half percent) and voltage (100 mV).
 */
import { Attr, Cluster, OnOffCmd } from '../../../../drivers/zigbee/zcl/clusters.ts';
import { DataType } from '../../../../drivers/zigbee/zcl/types.ts';
import { type Outgoing, SimDevice } from '../devices.ts';
import { commandFrom, reportFrom } from './frames.ts';

const EWELINK = 'eWeLink';

export const SONOFF_IEEE = {
  sonoffButton: '0x00124b000000d001',
  sonoffClimate: '0x00124b000000d002',
  sonoffMotion: '0x00124b000000d003',
  sonoffContact: '0x00124b000000d004',
} as const;

export const sonoffButton = (): SimDevice =>
  new SimDevice('sonoffButton', SONOFF_IEEE.sonoffButton, 0x2d01, 2, EWELINK, 'WB01', [
    {
      id: 1,
      deviceId: 0x0000,
      inClusters: [Cluster.BASIC, Cluster.POWER_CFG, Cluster.IDENTIFY],
      outClusters: [Cluster.IDENTIFY, Cluster.ON_OFF],
    },
  ]);

export const sonoffClimate = (): SimDevice =>
  new SimDevice('sonoffClimate', SONOFF_IEEE.sonoffClimate, 0x2d02, 2, EWELINK, 'TH01', [
    {
      id: 1,
      deviceId: 0x0302,
      inClusters: [Cluster.BASIC, Cluster.POWER_CFG, Cluster.IDENTIFY, Cluster.TEMPERATURE, Cluster.HUMIDITY],
      outClusters: [0x0019],
    },
  ]);

function ias(
  name: 'sonoffMotion' | 'sonoffContact',
  nwk: number,
  model: string,
  zoneType: number,
): SimDevice {
  const d = new SimDevice(name, SONOFF_IEEE[name], nwk, 2, EWELINK, model, [
    {
      id: 1,
      deviceId: 0x0402,
      inClusters: [Cluster.BASIC, Cluster.POWER_CFG, Cluster.IDENTIFY, Cluster.IAS_ZONE],
      outClusters: [Cluster.IDENTIFY],
    },
  ])
    .define(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATE, DataType.ENUM8, 0)
    .define(Cluster.IAS_ZONE, Attr.IAS_ZONE_TYPE, DataType.ENUM16, zoneType)
    .define(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATUS, DataType.BITMAP16, 0);
  d.iasMode = name === 'sonoffContact' ? 'trip' : 'auto';
  return d;
}

export const sonoffMotion = (): SimDevice => ias('sonoffMotion', 0x2d03, 'MS01', 0x000d);
export const sonoffContact = (): SimDevice => ias('sonoffContact', 0x2d04, 'DS01', 0x0015);

const GESTURE = { single: OnOffCmd.TOGGLE, double: OnOffCmd.ON, long: OnOffCmd.OFF } as const;

export function sonoffPress(gesture: keyof typeof GESTURE): Outgoing {
  return commandFrom(1, Cluster.ON_OFF, GESTURE[gesture]);
}

export function sonoffClimateReports(celsius: number, humidity: number): Outgoing[] {
  return [
    reportFrom(1, Cluster.TEMPERATURE, [
      { attr: Attr.MEASURED_VALUE, type: DataType.INT16, value: Math.round(celsius * 100) },
    ]),
    reportFrom(1, Cluster.HUMIDITY, [
      { attr: Attr.MEASURED_VALUE, type: DataType.UINT16, value: Math.round(humidity * 100) },
    ]),
  ];
}

export function sonoffBattery(percent: number, millivolts: number): Outgoing {
  return reportFrom(1, Cluster.POWER_CFG, [
    { attr: Attr.BATTERY_VOLTAGE, type: DataType.UINT8, value: Math.round(millivolts / 100) },
    { attr: Attr.BATTERY_PERCENT, type: DataType.UINT8, value: Math.round(percent * 2) },
  ]);
}
