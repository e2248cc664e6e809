/** `plugins.console` config. */
import type { JsonSchema } from '../../core/sdk.ts';

export interface ConsoleConfig {
  sessionMinutes: number;
}

export const configSchema: JsonSchema = {
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
};
