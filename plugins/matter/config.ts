/** `plugins.matter` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { JsonSchema } from '../../core/sdk.ts';

export interface MatterConfig {
  sites: string[];
  port: number;
  windowSeconds: number;
  listen: string;
  mdnsInterface: string;
  plugs: string[];
}

export const configSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sites: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      title: 'Sites',
      description:
        'Site ids or names that get a Matter bridge, one bridge each. Empty: the first site (the oldest), followed when it changes.',
    },
    port: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      default: 5540,
      title: 'UDP port',
      description:
        "UDP port of the first site's bridge (Matter's own default is 5540); further sites use the next ports in the order of `sites`. 0: a free port chosen at start (tests).",
    },
    windowSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 900,
      default: 900,
      title: 'Commissioning window (s)',
      description:
        'How long a commissioning window stays open before it closes by itself. Matter allows 180 to 900 s for a window opened by a controller; 900 gives time to walk over with the phone.',
    },
    listen: {
      type: 'string',
      default: '',
      title: 'Listen address',
      description:
        'IPv6 address the bridges listen on (also IPv4 unless it is an IPv6-only address such as ::1). Empty: every address, as home controllers expect.',
    },
    mdnsInterface: {
      type: 'string',
      default: '',
      title: 'mDNS interface',
      description:
        'Network interface the bridges announce themselves on over mDNS (e.g. eth0, wlan0). Empty: every interface.',
    },
    plugs: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      title: 'Plugs',
      description:
        "Ids of binary lights shown to Matter controllers as On/Off Plug-in Units although Hearth does not know them as plugs. Lights that are plugs (the light's `plug` field, taken from the device where the driver can tell) need no entry.",
    },
  },
};
