/** `plugins.console.announce`: where the hub answers mDNS questions for its console and household app. */
import type { JsonSchema } from '../../../core/sdk.ts';

/** A dotted IPv4 address, each part 0..255 without leading zeros. */
const IPV4 =
  '(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';

export const MDNS_GROUP = '224.0.0.251';
export const MDNS_PORT = 5353;

export const announceSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  title: 'Announce the hub on the LAN (mDNS)',
  description:
    'The hub answers mDNS questions for two `_http._tcp` services, its console and its household app, so a phone finds it by name. It shares port 5353 with the system responder (avahi) and answers only for its own service names.',
  properties: {
    enabled: {
      type: 'boolean',
      default: true,
      title: 'Announce',
      description: 'Answer mDNS questions for the console and the household app.',
    },
    interface: {
      type: 'string',
      pattern: `^(?:${IPV4})?$`,
      default: '',
      title: 'Network interface',
      description:
        'IPv4 address of the one network interface to answer on, for a hub on several networks (one of them untrusted). Empty: every interface. Used with a multicast address only.',
    },
    address: {
      type: 'string',
      pattern: `^${IPV4}$`,
      default: MDNS_GROUP,
      title: 'mDNS address',
      description:
        'The mDNS group 224.0.0.251 (or another multicast group) to join, or a unicast address of this host to listen on, where only questions sent to it directly are answered.',
    },
    port: {
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      default: MDNS_PORT,
      title: 'mDNS port',
      description: 'The port questions arrive on (5353, shared with avahi).',
    },
  },
} as const satisfies JsonSchema;

export interface AnnounceTarget {
  interface: string;
  address: string;
  port: number;
}

export const isMulticast = (ipv4: string): boolean => {
  const first = Number(ipv4.split('.')[0]);
  return first >= 224 && first <= 239;
};
