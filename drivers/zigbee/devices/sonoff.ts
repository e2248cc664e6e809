/**
 * Sonoff SNZB-01/02/03/04 (manufacturer `eWeLink`, later `SONOFF`): standard clusters throughout. The
 * button's three gestures are On/Off commands (toggle single, on double, off long); the motion and door
 * sensors are IAS zones (the motion sensor clears itself after about a minute); all report their battery.
 */
import { Cluster, OnOffCmd } from '../zcl/clusters.ts';
import { BATTERY_REPORTING } from './readings.ts';
import type { DeviceDefinition } from './types.ts';

const SONOFF = /^(eWeLink|SONOFF)/i;
const BATTERY = { [Cluster.POWER_CFG]: BATTERY_REPORTING };
const READINGS = ['battery', 'voltage', 'linkquality'] as const;
/** Battery at least every six hours: two missed reports, the device is shown as silent. */
const CHECK_IN = 13 * 3600;

const BUTTON: Record<number, string> = {
  [OnOffCmd.TOGGLE]: 'single',
  [OnOffCmd.ON]: 'double',
  [OnOffCmd.OFF]: 'long',
};

const button: DeviceDefinition = {
  vendor: 'Sonoff',
  manufacturer: SONOFF,
  models: [{ zigbeeModel: ['WB01', 'WB-01', 'SNZB-01'], model: 'SNZB-01', description: 'wireless button' }],
  kind: 'sensor',
  events: ['single', 'double', 'long'],
  readings: [...READINGS],
  checkInSeconds: CHECK_IN,
  reporting: BATTERY,
  commands(cluster, f) {
    if (cluster !== Cluster.ON_OFF) return undefined;
    const event = BUTTON[f.command];
    return event ? { events: [event] } : {};
  },
};

const climate: DeviceDefinition = {
  vendor: 'Sonoff',
  manufacturer: SONOFF,
  models: [
    { zigbeeModel: ['TH01', 'SNZB-02'], model: 'SNZB-02', description: 'temperature and humidity sensor' },
  ],
  kind: 'sensor',
  events: [],
  readings: ['temperature', 'humidity', ...READINGS],
  // Temperature and humidity at least hourly (configured at pairing).
  checkInSeconds: 3 * 3600,
  reporting: BATTERY,
};

const motion: DeviceDefinition = {
  vendor: 'Sonoff',
  manufacturer: SONOFF,
  models: [{ zigbeeModel: ['MS01', 'SNZB-03'], model: 'SNZB-03', description: 'motion sensor' }],
  kind: 'sensor',
  events: ['motion', 'no_motion', 'tamper'],
  readings: [...READINGS],
  checkInSeconds: CHECK_IN,
  reporting: BATTERY,
};

const contact: DeviceDefinition = {
  vendor: 'Sonoff',
  manufacturer: SONOFF,
  models: [{ zigbeeModel: ['DS01', 'SNZB-04'], model: 'SNZB-04', description: 'door and window sensor' }],
  kind: 'sensor',
  events: ['open', 'closed', 'tamper'],
  readings: [...READINGS],
  checkInSeconds: CHECK_IN,
  reporting: BATTERY,
};

export const sonoff: DeviceDefinition[] = [button, climate, motion, contact];
