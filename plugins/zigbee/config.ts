/** `plugins.zigbee` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { JsonSchema } from '../../core/sdk.ts';

export interface ZigbeeConfig {
  site: string;
  path: string;
  byIdDir: string;
  stick: 'auto' | 'znp' | 'ezsp';
  channel: number;
  permitJoinSeconds: number;
  occupancyTimeoutSeconds: number;
}

export const configSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    site: {
      type: 'string',
      default: 'Home',
      title: 'Site',
      description:
        'Site id or name that receives the Zigbee devices: each device that joins becomes a light or sensor of this site, marked new until accepted.',
    },
    path: {
      type: 'string',
      default: '',
      title: 'Serial port',
      description:
        'Serial device of the coordinator stick, Texas Instruments Z-Stack or Silicon Labs EmberZNet (e.g. /dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_... or /dev/serial/by-id/usb-Nabu_Casa_SkyConnect_...). Empty: the stick chosen in the console setup step, else the first known Zigbee stick under the by-id folder, if one is plugged in at start.',
    },
    byIdDir: {
      type: 'string',
      default: '/dev/serial/by-id',
      title: 'Serial by-id folder',
      description:
        'Folder of stable serial device names where sticks are looked for (at start when no serial port is set, and in the console when choosing one).',
    },
    stick: {
      type: 'string',
      enum: ['auto', 'znp', 'ezsp'],
      default: 'auto',
      title: 'Stick kind',
      description:
        'Which protocol the stick speaks. auto: found by probing (a Z-Stack ping, an ASH reset) with the by-id name deciding which to try first. znp: Texas Instruments Z-Stack (CC2652, CC1352). ezsp: Silicon Labs EmberZNet 7.x/8.x (EFR32: Connect ZBT-1/SkyConnect, ZBDongle-E, SLZB-06M/07). Force it only for firmware that answers the probe wrongly.',
    },
    channel: {
      type: 'integer',
      default: 0,
      minimum: 0,
      maximum: 26,
      title: 'Channel',
      description:
        'Zigbee channel (11-26) for a network formed on a blank stick. 0: one of 15, 20 or 25, which sit between the usual Wi-Fi channels. An existing network keeps its channel.',
    },
    permitJoinSeconds: {
      type: 'integer',
      default: 120,
      minimum: 1,
      maximum: 254,
      title: 'Permit-join time (s)',
      description: 'How long joining stays open when pairing is started without a duration.',
    },
    occupancyTimeoutSeconds: {
      type: 'integer',
      default: 0,
      minimum: 0,
      maximum: 3600,
      title: 'No-motion delay (s)',
      description:
        "Seconds after a motion sensor's last motion report that Hearth reports no_motion, for sensors that never send it themselves (the Aqara RTCGQ11LM). 0: the device table's value (90 s, as zigbee2mqtt's occupancy_timeout).",
    },
  },
};
