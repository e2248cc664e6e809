/** The profiles by name (docs/mqtt-devices.md#profiles: chosen per device by config, never by heuristics). */
import type { ProfileName } from '../device.ts';
import { haJson } from './ha-json.ts';
import { shellyGen1 } from './shelly-gen1.ts';
import { shellyGen2 } from './shelly-gen2.ts';
import { tasmota } from './tasmota.ts';
import type { Profile } from './types.ts';
import { zigbee2mqtt } from './zigbee2mqtt.ts';

export const profiles: Record<ProfileName, Profile> = {
  zigbee2mqtt,
  'ha-json': haJson,
  tasmota,
  shelly1: shellyGen1,
  shelly2: shellyGen2,
};
