/**
 * Manufacturer-specific button frames of remotes commonly sold with lights (docs/zigbee.md#remotes):
 * the IKEA TRÅDFRI remote's and STYRBAR's arrow buttons, and the Hue dimmer switch in Zigbee mode.
 */
import { Cluster } from './clusters.ts';
import type { ZclFrame } from './frame.ts';

export const Manufacturer = { IKEA: 0x117c, SIGNIFY: 0x100b } as const;

/** The Hue dimmer's manufacturer cluster; its `hueNotification` command (0x00) carries every button event. */
export const HUE_BUTTON_CLUSTER = 0xfc00;

const HUE_BUTTONS: Record<number, string> = { 1: 'on', 2: 'up', 3: 'down', 4: 'off' };
const HUE_ACTIONS: Record<number, string> = { 0: 'press', 1: 'hold', 2: 'press_release', 3: 'hold_release' };

export const HUE_DIMMER_EVENTS = Object.values(HUE_BUTTONS).flatMap((b) =>
  Object.values(HUE_ACTIONS).map((a) => `${b}_${a}`),
);

export const IKEA_ARROW_EVENTS = ['left', 'right'].flatMap((d) =>
  ['click', 'hold', 'release'].map((a) => `arrow_${d}_${a}`),
);

/** IKEA's Scenes commands for the arrows (manufacturer code 0x117C, client → server). */
const IkeaArrow = { CLICK: 0x07, HOLD: 0x08, RELEASE: 0x09 } as const;

/**
 * A vendor button frame as a sensor event, or null when the frame is not one. `held` keeps, per device,
 * the direction of an arrow being held: IKEA's release frame carries only the hold's duration.
 */
export function vendorEvent(cluster: number, f: ZclFrame, held: { direction?: string }): string | null {
  if (f.kind !== 1 || f.payload.length < 2) return null;
  if (cluster === Cluster.SCENES && f.manufacturerCode === Manufacturer.IKEA && !f.fromServer) {
    const value = f.payload.readUInt16LE(0);
    switch (f.command) {
      case IkeaArrow.CLICK:
        if (value === 2) return null; // sent alongside a held toggle button, not an arrow
        return `arrow_${value === 257 ? 'left' : 'right'}_click`;
      case IkeaArrow.HOLD:
        held.direction = value === 3329 ? 'left' : 'right';
        return `arrow_${held.direction}_hold`;
      case IkeaArrow.RELEASE: {
        const direction = held.direction;
        delete held.direction;
        return direction ? `arrow_${direction}_release` : null;
      }
      default:
        return null;
    }
  }
  // hueNotification: button u8, 3 bytes, type u8, then a byte, the hold time, a byte.
  if (cluster === HUE_BUTTON_CLUSTER && f.fromServer && f.command === 0x00 && f.payload.length >= 5) {
    const button = HUE_BUTTONS[f.payload[0] as number];
    const action = HUE_ACTIONS[f.payload[4] as number];
    return button && action ? `${button}_${action}` : null;
  }
  return null;
}
