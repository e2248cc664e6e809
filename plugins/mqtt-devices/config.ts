/** `plugins.mqtt-devices` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { ConfigOf, JsonSchema } from '../../core/sdk.ts';

const str = <T extends string, D extends string = ''>(title: T, description: string, def?: D) =>
  ({
    type: 'string',
    default: (def ?? '') as D,
    title,
    description,
  }) as const;

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    discoverySite: str(
      'Site for discovered devices',
      'Site id or name that receives devices found through Home Assistant, zigbee2mqtt or Tasmota discovery: each becomes a light or sensor of this site, marked new until accepted. Empty: discovery is off.',
      'Home',
    ),
    homeAssistantDiscovery: {
      type: 'boolean',
      default: true,
      title: 'Home Assistant discovery',
      description:
        'Listen to <prefix>/light/.../config and device_automation triggers for devices that announce themselves.',
    },
    homeAssistantPrefix: str(
      'Home Assistant discovery prefix',
      'Topic prefix of Home Assistant MQTT discovery.',
      'homeassistant',
    ),
    zigbee2mqttDiscovery: {
      type: 'boolean',
      default: true,
      title: 'zigbee2mqtt discovery',
      description:
        "Read zigbee2mqtt's retained <base>/bridge/devices list; devices missing from a new list are marked unavailable.",
    },
    zigbee2mqttBase: str('zigbee2mqtt base topic', 'zigbee2mqtt base_topic setting.', 'zigbee2mqtt'),
    publishHomeAssistant: {
      type: 'boolean',
      default: false,
      title: 'Publish Home Assistant discovery',
      description:
        'Announce every light and sensor of every site (any vendor) to Home Assistant (retained configs under the discovery prefix, pointing at hearth/<site>/... topics).',
    },
    broker: {
      type: 'object',
      additionalProperties: false,
      default: {},
      title: 'Device broker',
      description:
        "Where the devices are. Empty url: the hub's own broker (in process). Otherwise an external broker, e.g. the Mosquitto of an existing zigbee2mqtt install.",
      properties: {
        url: str(
          'URL',
          'mqtt://, mqtts://, ws:// or wss:// URL of an external broker; empty for the hub broker.',
        ),
        username: str('User name', 'User name at the external broker.'),
        password: str('Password', 'Password at the external broker (never logged).'),
        caFile: str('CA file', 'PEM file of the CA that signed the broker certificate (mqtts://, wss://).'),
        rejectUnauthorized: {
          type: 'boolean',
          default: true,
          title: 'Verify the certificate',
          description: 'Refuse a TLS broker whose certificate does not verify.',
        },
      },
    },
  },
} as const satisfies JsonSchema;

export type MqttDevicesConfig = ConfigOf<typeof configSchema>;
