/**
 * Which `mqttid`s can name a device (the lighting plugin asks before a light or sensor is created or
 * changed to one): `tasmota:+`, `tasmota:#`, `tasmota:kitchen/` or `TASMOTA:kitchen` name none, and every
 * command to such a light would fail. The profiles and their addresses are the table in the README.
 */
import { type AddressDefaults, deviceFromProtocolId } from '../../drivers/mqtt/device.ts';

const PROFILES = 'zigbee2mqtt, tasmota, shelly1, shelly2 or ha';

/** Why `protocolid` can name no MQTT device, or null when it can. */
export function mqttIdProblem(protocolid: string, defaults: AddressDefaults): string | null {
  const colon = protocolid.indexOf(':');
  if (colon <= 0) return `an mqttid is <profile>:<address> (profile ${PROFILES})`;
  const profile = protocolid.slice(0, colon);
  const address = protocolid.slice(colon + 1);
  if (address.includes('+') || address.includes('#')) return 'an address has no MQTT wildcards (+, #)';
  // A topic level left empty (`kitchen/`, `a//b`) is a different topic from the device's.
  if (address.split('/').some((level) => level === '')) return 'an address has no empty topic level';
  // Home Assistant devices are named by their unique_id; their topics come from discovery or registration.
  if (profile === 'ha') return null;
  if (deviceFromProtocolId(protocolid, defaults)) return null;
  if (profile === 'tasmota') return 'a Tasmota topic is one topic level';
  if (profile === 'shelly1' || profile === 'shelly2')
    return `a Shelly id is <id>[:<component>:<channel>] (${profile === 'shelly1' ? 'relay, light, color, white' : 'switch, light'})`;
  return `unknown profile ${profile} (profiles are lower case: ${PROFILES})`;
}
