/** `plugins.console` config. */
import type { ConfigOf, JsonSchema } from '../../core/sdk.ts';

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
        'A console session ends after this long without a request; the admin key is then asked for again.',
    },
  },
} as const satisfies JsonSchema;

export type ConsoleConfig = ConfigOf<typeof configSchema>;
