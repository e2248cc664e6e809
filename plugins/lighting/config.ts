/** `plugins.lighting` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { ConfigOf, JsonSchema } from '../../core/sdk.ts';

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    reconcileMs: {
      type: 'integer',
      minimum: 50,
      maximum: 600000,
      default: 3000,
      title: 'Reconciliation timeout (ms)',
      description:
        'How long to wait for a device to report a commanded level. After that the driver is asked to read the light, or the commanded level is assumed.',
    },
    commandTimeoutMs: {
      type: 'integer',
      minimum: 50,
      maximum: 600000,
      default: 10000,
      title: 'Driver answer timeout (ms)',
      description:
        'How long a driver may take to accept a command, read a light or pair. A command that takes longer is answered 504; the light takes new commands again.',
    },
    createHomeSite: {
      type: 'boolean',
      default: true,
      title: 'Create a first site',
      description:
        'On the first start of a data directory with no site, create a site named "Home" and print its web UI URL (only once: deleting every site later does not bring it back).',
    },
    subdefBase: {
      type: 'string',
      pattern: '^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){3}$',
      default: 'ff:80:00:00',
      title: 'Radio sender id base',
      description:
        'Base ID used by GET /subdef/next when the vendor driver does not report its own (EnOcean Base IDs lie in ff:80:00:00..ff:ff:ff:fe, 128 ids each).',
    },
    scheduleCatchUpMinutes: {
      type: 'integer',
      minimum: 0,
      maximum: 1440,
      default: 15,
      title: 'Schedule catch-up (minutes)',
      description:
        'A schedule slot missed while the hub was down or the clock jumped runs once when it is at most this old; older missed slots are skipped. 0: never catch up.',
    },
    historyDays: {
      type: 'integer',
      minimum: 1,
      maximum: 31,
      default: 7,
      title: 'History kept (days)',
      description: 'How long light levels and sensor events are kept for GET /history.',
    },
    historyMaxEntries: {
      type: 'integer',
      minimum: 100,
      maximum: 200000,
      default: 20000,
      title: 'History size (entries)',
      description:
        'At most this many history entries are kept (all sites together; the oldest go first). Each is about 100 bytes in lighting.history.json.',
    },
    historyWriteSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 60,
      title: 'History write interval (s)',
      description:
        'History reaches the disk at most once per this many seconds (the whole file is rewritten each time, so a long interval spares the SD card). A crash loses at most this much history; a normal stop loses none.',
    },
    drivers: {
      type: 'array',
      default: [],
      title: 'Driver instances',
      description: 'Lighting drivers to start, each serving one site. Types are loaded only when used.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type', 'site'],
        properties: {
          id: { type: 'string', minLength: 1, default: '', title: 'Id', description: 'Unique instance id.' },
          type: {
            type: 'string',
            minLength: 1,
            default: 'virtual',
            title: 'Driver type',
            description: 'Built in: "virtual". Other plugins register more (e.g. "mqtt").',
          },
          site: {
            type: 'string',
            minLength: 1,
            default: 'Home',
            title: 'Site',
            description: 'Site id or site name.',
          },
          options: {
            type: 'object',
            default: {},
            title: 'Driver options',
            description: 'Passed to the driver as is; see the driver README.',
          },
        },
      },
    },
  },
} as const satisfies JsonSchema;

export type LightingConfig = ConfigOf<typeof configSchema>;
/** One entry of `drivers`: a driver instance for one site. */
export type DriverConfig = LightingConfig['drivers'][number];
