/**
 * IKEA TRÅDFRI: remotes that send standard On/Off and Level commands plus the arrow buttons as
 * manufacturer-specific Scenes commands (code 0x117C), and bulbs whose colour temperature range is known
 * per model. Action names are zigbee2mqtt's for the same remote.
 */
import { Cluster, LevelCmd, OnOffCmd } from '../zcl/clusters.ts';
import { vendorEvent } from '../zcl/vendor-remotes.ts';
import { BATTERY_REPORTING } from './readings.ts';
import type { DeviceDefinition, FrameContext, Output } from './types.ts';

const IKEA = /^IKEA/i;
/** Remotes report their battery at least every six hours (configured at pairing); two missed, it is silent. */
const REMOTE_CHECK_IN = 13 * 3600;

const ARROWS = ['left', 'right'].flatMap((d) => ['click', 'hold', 'release'].map((a) => `arrow_${d}_${a}`));
const DIMMING = ['brightness_move_up', 'brightness_move_down', 'brightness_stop'];

/** The arrows: IKEA's Scenes commands; the arrow held is remembered for its release, which does not say. */
function arrows(
  cluster: number,
  f: Parameters<typeof vendorEvent>[1],
  ctx: FrameContext,
): Output | undefined {
  if (cluster !== Cluster.SCENES || f.manufacturerCode === undefined) return undefined;
  if (!ctx.memory.held) ctx.memory.held = {};
  const held = ctx.memory.held as { direction?: string };
  // The click command with value 2 comes with the middle button held (zigbee2mqtt's `toggle_hold`).
  if (f.command === 0x07 && f.payload.length >= 2 && f.payload.readUInt16LE(0) === 2)
    return { events: ['toggle_hold'] };
  const event = vendorEvent(cluster, f, held);
  return event ? { events: [event] } : {};
}

/** E1524/E1810: every button by its command (zigbee2mqtt's names for this remote). */
const REMOTE_LEVEL: Record<number, string> = {
  [LevelCmd.STEP_ON_OFF]: 'brightness_up_click',
  [LevelCmd.STEP]: 'brightness_down_click',
  [LevelCmd.MOVE_ON_OFF]: 'brightness_up_hold',
  [LevelCmd.MOVE]: 'brightness_down_hold',
  [LevelCmd.STOP_ON_OFF]: 'brightness_up_release',
  [LevelCmd.STOP]: 'brightness_down_release',
};

const remote: DeviceDefinition = {
  vendor: 'IKEA',
  manufacturer: IKEA,
  models: [
    {
      zigbeeModel: ['TRADFRI remote control'],
      model: 'E1524/E1810',
      description: 'TRÅDFRI remote control',
    },
  ],
  kind: 'sensor',
  events: [
    'toggle',
    'toggle_hold',
    ...['up', 'down'].flatMap((d) => ['click', 'hold', 'release'].map((a) => `brightness_${d}_${a}`)),
    ...ARROWS,
  ],
  readings: ['battery', 'linkquality'],
  checkInSeconds: REMOTE_CHECK_IN,
  reporting: { [Cluster.POWER_CFG]: BATTERY_REPORTING },
  commands(cluster, f, ctx) {
    if (cluster === Cluster.ON_OFF && f.command === OnOffCmd.TOGGLE) return { events: ['toggle'] };
    if (cluster === Cluster.LEVEL) {
      const event = REMOTE_LEVEL[f.command];
      return event ? { events: [event] } : {};
    }
    return arrows(cluster, f, ctx);
  },
};

/** On/off switch, STYRBAR and shortcut button: standard commands, whose generic names are zigbee2mqtt's. */
const switches: DeviceDefinition = {
  vendor: 'IKEA',
  manufacturer: IKEA,
  models: [
    {
      zigbeeModel: ['TRADFRI on/off switch'],
      model: 'E1743',
      description: 'TRÅDFRI on/off switch',
      events: ['on', 'off', ...DIMMING],
    },
    {
      zigbeeModel: ['Remote Control N2'],
      model: 'E2001/E2002',
      description: 'STYRBAR remote control',
      events: ['on', 'off', ...DIMMING, ...ARROWS],
    },
    {
      zigbeeModel: ['TRADFRI SHORTCUT Button'],
      model: 'E1812',
      description: 'TRÅDFRI shortcut button',
      events: ['on', 'off', 'brightness_move_up', 'brightness_stop'],
    },
  ],
  kind: 'sensor',
  readings: ['battery', 'linkquality'],
  checkInSeconds: REMOTE_CHECK_IN,
  reporting: { [Cluster.POWER_CFG]: BATTERY_REPORTING },
  commands: arrows,
};

/** White-spectrum bulbs: 2200 K to 4000 K (454 to 250 mirek), whatever range the bulb reports. */
const WS = { min: 250, max: 454 };

const bulbs: DeviceDefinition = {
  vendor: 'IKEA',
  manufacturer: IKEA,
  models: [
    {
      zigbeeModel: ['TRADFRI bulb E27 WS opal 980lm'],
      model: 'LED1545G12',
      description: 'TRÅDFRI bulb E27 white spectrum 980 lm',
      ct: WS,
    },
    {
      zigbeeModel: ['TRADFRI bulb E27 WS clear 950lm'],
      model: 'LED1546G12',
      description: 'TRÅDFRI bulb E27 white spectrum clear 950 lm',
      ct: WS,
    },
    {
      zigbeeModel: ['TRADFRI bulb E14 WS opal 400lm'],
      model: 'LED1536G5',
      description: 'TRÅDFRI bulb E14 white spectrum 400 lm',
      ct: WS,
    },
    {
      zigbeeModel: ['TRADFRI bulb GU10 WS 400lm'],
      model: 'LED1537R6/LED1739R5',
      description: 'TRÅDFRI bulb GU10 white spectrum 400 lm',
      ct: WS,
    },
    {
      zigbeeModel: ['TRADFRI bulb E27 WS globe 1055lm'],
      model: 'LED2201G8',
      description: 'TRÅDFRI bulb E27 white spectrum globe 1055 lm',
      ct: WS,
    },
  ],
};

export const ikea: DeviceDefinition[] = [remote, switches, bulbs];
