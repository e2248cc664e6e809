/**
 * Philips Hue paired straight to the stick: the dimmer switch and tap dial report every button on the
 * Philips cluster 0xFC00 (`hueNotification`: button, then the press type 0 press, 1 hold, 2 short release,
 * 3 long release; the tap dial's ring is button 20 with a signed amount); the motion sensor is standard
 * ZCL (occupancy it clears itself, log-scale illuminance, temperature); bulbs have the colour gamut
 * Philips publishes per model.
 */
import { HUE_GAMUT_A, HUE_GAMUT_B, HUE_GAMUT_C } from '../../lighting/index.ts';
import { Cluster } from '../zcl/clusters.ts';
import type { ZclFrame } from '../zcl/frame.ts';
import { HUE_BUTTON_CLUSTER, HUE_DIMMER_EVENTS } from '../zcl/vendor-remotes.ts';
import { BATTERY_REPORTING } from './readings.ts';
import type { DeviceDefinition, ModelEntry, Output } from './types.ts';

const PHILIPS = /^(Philips|Signify)/i;
const PRESS: Record<number, string> = { 0: 'press', 1: 'hold', 2: 'press_release', 3: 'hold_release' };

/** A hueNotification's button and press type, or null. */
function notification(cluster: number, f: ZclFrame): { button: number; press: string } | null {
  if (cluster !== HUE_BUTTON_CLUSTER || f.kind !== 1 || f.command !== 0x00 || f.payload.length < 5)
    return null;
  const press = PRESS[f.payload[4] as number];
  return press ? { button: f.payload[0] as number, press } : null;
}

const DIMMER_BUTTONS: Record<number, string> = { 1: 'on', 2: 'up', 3: 'down', 4: 'off' };

const dimmer: DeviceDefinition = {
  vendor: 'Philips Hue',
  manufacturer: PHILIPS,
  models: [
    { zigbeeModel: ['RWL020', 'RWL021'], model: 'RWL020/RWL021', description: 'dimmer switch' },
    { zigbeeModel: ['RWL022'], model: 'RWL022', description: 'dimmer switch (2021)' },
  ],
  kind: 'sensor',
  events: HUE_DIMMER_EVENTS,
  readings: ['battery', 'linkquality'],
  checkInSeconds: 13 * 3600,
  reporting: { [Cluster.POWER_CFG]: BATTERY_REPORTING },
  commands(cluster, f): Output {
    const n = notification(cluster, f);
    const button = n && DIMMER_BUTTONS[n.button];
    // Its standard On/Off and Level commands (for lights bound to it) would repeat each press.
    return button ? { events: [`${button}_${n.press}`] } : {};
  },
};

/** The tap dial's ring on 0xFC00 reports as button 20. */
const DIAL_BUTTON = 20;
const DIAL_EVENTS = ['left', 'right'].flatMap((d) =>
  ['step', 'slow', 'fast'].map((s) => `dial_rotate_${d}_${s}`),
);

/**
 * A ring turn: bytes 6–7 of the notification are a signed 16-bit amount (little endian), positive
 * clockwise; its size gives the speed zigbee2mqtt names (up to 25 a step, up to 75 slow, beyond fast).
 */
function dialRotation(f: ZclFrame): string | null {
  if (f.payload.length < 8) return null;
  const amount = f.payload.readInt16LE(6);
  if (amount === 0) return null;
  const size = Math.abs(amount);
  const speed = size <= 25 ? 'step' : size <= 75 ? 'slow' : 'fast';
  return `dial_rotate_${amount > 0 ? 'right' : 'left'}_${speed}`;
}

const TAP_DIAL_EVENTS = [
  ...[1, 2, 3, 4].flatMap((b) => Object.values(PRESS).map((p) => `button_${b}_${p}`)),
  ...DIAL_EVENTS,
  'brightness_step_up',
  'brightness_step_down',
];

const tapDial: DeviceDefinition = {
  vendor: 'Philips Hue',
  manufacturer: PHILIPS,
  models: [{ zigbeeModel: ['RDM002'], model: '8719514440937/8719514440999', description: 'tap dial switch' }],
  kind: 'sensor',
  events: TAP_DIAL_EVENTS,
  readings: ['battery', 'linkquality'],
  checkInSeconds: 13 * 3600,
  reporting: { [Cluster.POWER_CFG]: BATTERY_REPORTING },
  commands(cluster, f): Output | undefined {
    if (
      cluster === HUE_BUTTON_CLUSTER &&
      f.kind === 1 &&
      f.command === 0x00 &&
      f.payload[0] === DIAL_BUTTON
    ) {
      const rotation = dialRotation(f);
      return rotation ? { events: [rotation] } : {};
    }
    const n = notification(cluster, f);
    if (n) return n.button >= 1 && n.button <= 4 ? { events: [`button_${n.button}_${n.press}`] } : {};
    // Each turn also comes as a Level step command: the generic `brightness_step_up`/`_down`.
    if (cluster === Cluster.LEVEL) return undefined;
    return {};
  },
};

const motion: DeviceDefinition = {
  vendor: 'Philips Hue',
  manufacturer: PHILIPS,
  models: [
    { zigbeeModel: ['SML001'], model: '9290012607', description: 'motion sensor' },
    { zigbeeModel: ['SML002'], model: '9290019758', description: 'outdoor motion sensor' },
    { zigbeeModel: ['SML003'], model: '9290030675', description: 'motion sensor (2022)' },
    { zigbeeModel: ['SML004'], model: '9290030674', description: 'outdoor motion sensor (2022)' },
  ],
  kind: 'sensor',
  events: ['motion', 'no_motion'],
  readings: ['illuminance', 'temperature', 'battery', 'linkquality'],
  // Occupancy at least every 10 minutes, temperature and illuminance hourly (configured at pairing).
  checkInSeconds: 2 * 3600,
  reporting: { [Cluster.POWER_CFG]: BATTERY_REPORTING },
};

/** Bulbs by gamut (Philips' developer documentation lists the model ids of each). */
const bulb =
  (gamut: typeof HUE_GAMUT_A, description: string) =>
  (id: string): ModelEntry => ({
    zigbeeModel: [id],
    model: id,
    description,
    gamut,
  });
const GAMUT_A = ['LLC005', 'LLC006', 'LLC007', 'LLC010', 'LLC011', 'LLC012', 'LLC013', 'LLC014', 'LST001'];
const GAMUT_B = ['LCT001', 'LCT002', 'LCT003', 'LCT007', 'LLM001'];
const GAMUT_C = [
  'LCT010',
  'LCT011',
  'LCT012',
  'LCT014',
  'LCT015',
  'LCT016',
  'LCT024',
  'LLC020',
  'LST002',
  'LCA001',
  'LCA002',
  'LCA003',
  'LCG002',
];

const bulbs: DeviceDefinition = {
  vendor: 'Philips Hue',
  manufacturer: PHILIPS,
  models: [
    ...GAMUT_A.map(bulb(HUE_GAMUT_A, 'colour light (gamut A)')),
    ...GAMUT_B.map(bulb(HUE_GAMUT_B, 'colour bulb (gamut B)')),
    ...GAMUT_C.map(bulb(HUE_GAMUT_C, 'colour light (gamut C)')),
  ],
};

export const philips: DeviceDefinition[] = [dimmer, tapDial, motion, bulbs];
