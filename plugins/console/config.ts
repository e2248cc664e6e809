/** `plugins.console` config. */
import type { ConfigOf, JsonSchema } from '../../core/sdk.ts';
import { announceSchema } from './mdns/config.ts';

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sessionMinutes: {
      type: 'integer',
      minimum: 5,
      maximum: 10080,
      default: 720,
      title: 'Console session idle time (minutes)',
      description:
        'A console session ends after this long without a request; the owner password or the admin key is then asked for again.',
    },
    claim: {
      type: 'object',
      additionalProperties: false,
      default: {},
      title: 'Claiming a new hub',
      description:
        'Until a new hub is claimed, its console offers "Set up this hub" to the first visitor from a private, link-local or loopback address.',
      properties: {
        setupCode: {
          type: 'boolean',
          default: false,
          title: 'Require the setup code',
          description:
            'Ask for the one-time setup code before the setup form is shown: for a hub on a network others share. The first start prints the code; `hearth status` (and the install script) show it until the hub is claimed.',
        },
      },
    },
    announce: announceSchema,
  },
} as const satisfies JsonSchema;

export type ConsoleConfig = ConfigOf<typeof configSchema>;
