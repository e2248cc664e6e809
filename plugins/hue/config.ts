/** `plugins.hue` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { JsonSchema } from '../../core/sdk.ts';
import { type DiscoveryTarget, MDNS_TARGET } from '../../drivers/hue/discovery.ts';

export interface HueConfig {
  roots: string[];
  pinUnverified: boolean;
  pairingTimeoutMs: number;
  readTimeoutMs: number;
  discovery: DiscoveryTarget;
}

/** A dotted IPv4 address, each part 0..255 without leading zeros. */
const IPV4 =
  '(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';

export const configSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    roots: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      title: 'Extra trusted bridge roots',
      description:
        'PEM files of root certificates that sign Hue bridge certificates, besides the Philips Hue and Signify Hue roots Hearth ships. A bridge they verify (and whose certificate names its bridge id) is trusted without pinning.',
    },
    pinUnverified: {
      type: 'boolean',
      default: true,
      title: 'Pin unverified bridges',
      description:
        'At pairing, pin the certificate of a bridge the trusted roots cannot verify (trust on first use; the fingerprint is shown). When false, such a bridge cannot be paired.',
    },
    pairingTimeoutMs: {
      type: 'integer',
      minimum: 1000,
      maximum: 120000,
      default: 30000,
      title: 'Link button wait (ms)',
      description: 'How long pairing waits for the link button to be pressed.',
    },
    readTimeoutMs: {
      type: 'integer',
      minimum: 1000,
      maximum: 3600000,
      default: 90000,
      title: 'Event stream read timeout (ms)',
      description:
        'A bridge sends no keepalives: an event stream silent for this long is closed, reopened and followed by a full resync.',
    },
    discovery: {
      type: 'object',
      additionalProperties: false,
      default: {},
      title: 'Bridge discovery',
      description:
        'Where the mDNS question for Hue bridges goes: "Find bridges" in the console, `hearth hue discover`, and the search for a paired bridge that moved.',
      properties: {
        interface: {
          type: 'string',
          pattern: `^(?:${IPV4})?$`,
          default: MDNS_TARGET.interface,
          title: 'Network interface',
          description:
            'IPv4 address of the network interface to ask on, for a hub on several networks. Empty: the group is joined on every interface and the system picks the one to send on. Used with a multicast address only.',
        },
        address: {
          type: 'string',
          pattern: `^${IPV4}$`,
          default: MDNS_TARGET.address,
          title: 'mDNS address',
          description:
            'IPv4 address the question is sent to: the mDNS group 224.0.0.251 (or another multicast group), or the unicast address of one host, which is asked directly and answers to the port the question came from.',
        },
        port: {
          type: 'integer',
          minimum: 1,
          maximum: 65535,
          default: MDNS_TARGET.port,
          title: 'mDNS port',
          description:
            'UDP port the question is sent to; for a multicast group also the port answers are received on.',
        },
      },
    },
  },
};
