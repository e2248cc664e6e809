/**
 * The vendor twins (docs/zigbee.md#adding-a-device): simulated Aqara, IKEA, Hue and Sonoff devices in the
 * same device model as devices.ts, so any simulated coordinator can host them (`host(...)`), and the
 * frames each sends on its own.
 */
import type { SimDevice } from '../devices.ts';
import { aqaraContact, aqaraMiniSwitch, aqaraMotion, aqaraWallSwitch, aqaraWeather } from './aqara.ts';

export const VENDOR_TWINS = {
  aqaraMiniSwitch,
  aqaraWallSwitch,
  aqaraMotion,
  aqaraContact,
  aqaraWeather,
} satisfies Record<string, () => SimDevice>;

export type VendorDeviceName = keyof typeof VENDOR_TWINS;

export function vendorTwin(name: VendorDeviceName): SimDevice {
  return VENDOR_TWINS[name]();
}
