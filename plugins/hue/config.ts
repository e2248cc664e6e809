/** `plugins.hue` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { JsonSchema } from '../../core/sdk.ts';

export interface HueConfig {
  roots: string[];
  pinUnverified: boolean;
  pairingTimeoutMs: number;
  readTimeoutMs: number;
}

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
  },
};
