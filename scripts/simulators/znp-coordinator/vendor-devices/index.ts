/**
 * The vendor twins (docs/zigbee.md#adding-a-device): simulated Aqara, IKEA, Hue and Sonoff devices in the
 * same device model as devices.ts, so any simulated coordinator can host them (`host(...)`), and the
 * frames each sends on its own.
 */
import type { SimDevice } from '../devices.ts';
import { aqaraContact, aqaraMiniSwitch, aqaraMotion, aqaraWallSwitch, aqaraWeather } from './aqara.ts';
import { hueBulbB, hueDimmer2, hueMotion, hueTapDial } from './hue.ts';
import { ikeaBulb, ikeaOnOff, ikeaRemote, ikeaShortcut, ikeaStyrbar } from './ikea.ts';
import type { VendorDeviceName } from './names.ts';
import { sonoffButton, sonoffClimate, sonoffContact, sonoffMotion } from './sonoff.ts';

export const VENDOR_TWINS = {
  aqaraMiniSwitch,
  aqaraWallSwitch,
  aqaraMotion,
  aqaraContact,
  aqaraWeather,
  ikeaRemote,
  ikeaOnOff,
  ikeaStyrbar,
  ikeaShortcut,
  ikeaBulb,
  hueDimmer2,
  hueTapDial,
  hueMotion,
  hueBulbB,
  sonoffButton,
  sonoffClimate,
  sonoffMotion,
  sonoffContact,
} satisfies Record<VendorDeviceName, () => SimDevice>;

export function vendorTwin(name: VendorDeviceName): SimDevice {
  return VENDOR_TWINS[name]();
}

export type { VendorDeviceName } from './names.ts';
