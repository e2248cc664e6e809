import type { JsonSchema } from '../plugin/types.ts';

const port = <T extends string, D extends number>(title: T, def: D) =>
  ({
    title,
    description: 'TCP port to listen on; 0 picks a free port.',
    type: 'integer',
    minimum: 0,
    maximum: 65535,
    default: def,
  }) as const;

const listener = <T extends string, D extends number>(title: T, def: D) =>
  ({
    title,
    description: `The ${title} HTTP listener.`,
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
      port: port(`${title} port`, def),
      host: {
        title: 'Bind address',
        description: 'Overrides the top-level host for this listener.',
        type: 'string',
      },
      publicUrl: {
        title: 'Public URL',
        description:
          'The origin clients reach this listener at (a reverse proxy, a DNS name), e.g. "https://hearth.example.net". DPoP proofs must name it. Unset: the box’s own names (hostname, .local, loopback, LAN addresses, http.tls.hostnames) at the bound port.',
        type: 'string',
        pattern: '^https?://[^/?#]+/?$',
      },
    },
  }) as const;

/** JSON Schema of the core's own config (everything but `plugins.<name>` slices). */
export const coreSchema = {
  title: 'Hearth configuration',
  type: 'object',
  additionalProperties: false,
  properties: {
    dataDir: {
      title: 'Data directory',
      description:
        'Where every lowdb JSON file lives. Relative paths are resolved from the working directory.',
      type: 'string',
      minLength: 1,
      default: './data',
    },
    host: {
      title: 'Bind address',
      description: 'Address every listener binds to unless it names its own.',
      type: 'string',
      default: '0.0.0.0',
    },
    log: {
      title: 'Logging',
      description: 'pino logger settings.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        level: {
          title: 'Log level',
          description: 'Lowest level written.',
          enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
          default: 'info',
        },
        format: {
          title: 'Log format',
          description:
            'json: one pino JSON object per line (journald, files). pretty: readable text. auto: pretty when stdout is a terminal, json otherwise.',
          enum: ['auto', 'json', 'pretty'],
          default: 'auto',
        },
      },
    },
    http: {
      title: 'HTTP',
      description: 'The core HTTP listeners.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        main: listener('Main listener (site API, web UI, translation API)', 8080),
        admin: listener('Admin listener (/admin/... and /metrics)', 9001),
        tls: {
          title: 'HTTPS',
          description: 'Serve every HTTP listener (main, admin and plugin listeners) over TLS.',
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            enabled: {
              title: 'Enabled',
              description: 'Off by default: a fresh box has no certificate a phone trusts (see the README).',
              type: 'boolean',
              default: false,
            },
            certFile: {
              title: 'Certificate file',
              description:
                'PEM certificate (chain); with keyFile. Without both, a self-signed one is generated.',
              type: 'string',
            },
            keyFile: { title: 'Key file', description: 'PEM private key of certFile.', type: 'string' },
            hostnames: {
              title: 'Extra names',
              description:
                'DNS names or IPs added to a generated certificate (hostname, .local and LAN IPs are always in).',
              type: 'array',
              items: { type: 'string' },
              default: [],
            },
          },
        },
        bodyLimit: {
          title: 'Request body limit',
          description: 'Largest JSON or form body accepted, e.g. "1mb"; larger bodies get 413.',
          type: 'string',
          pattern: '^[0-9]+(b|kb|mb)$',
          default: '1mb',
        },
      },
    },
    mqtt: {
      title: 'MQTT broker',
      description: 'The embedded aedes broker, or an external one.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: {
          title: 'Embedded TCP listener',
          description:
            'Listen for MQTT over TCP (MQTT over WebSocket at /mqtt on the main listener follows it).',
          type: 'boolean',
          default: true,
        },
        port: port('MQTT TCP port', 1883),
        host: {
          title: 'Bind address',
          description: 'Overrides the top-level host for MQTT.',
          type: 'string',
        },
        allowAnonymous: {
          title: 'Allow anonymous clients',
          description:
            'Accept clients that present no user name and no password. Only for a trusted LAN; credentials that are presented are always checked.',
          type: 'boolean',
          default: false,
        },
        maxPacketSize: {
          title: 'Largest MQTT packet (bytes)',
          description:
            "Largest packet the embedded broker accepts, header included, over TCP and /mqtt alike; a larger one closes the connection. zigbee2mqtt's retained bridge/devices of a large network can need more than the default.",
          type: 'integer',
          minimum: 65536,
          maximum: 268435455,
          default: 1048576,
        },
        clientQueueBytes: {
          title: 'Outgoing queue per client (bytes)',
          description:
            'Unsent bytes a client may fall behind by: past it its QoS 0 messages are dropped and a QoS 1/2 message disconnects it, so a stuck subscriber never slows the others.',
          type: 'integer',
          minimum: 16384,
          maximum: 268435455,
          default: 262144,
        },
        connectTimeoutMs: {
          title: 'CONNECT timeout (ms)',
          description: 'A connection that has not sent its CONNECT within this time is closed.',
          type: 'integer',
          minimum: 1000,
          maximum: 120000,
          default: 10000,
        },
        maxPendingConnections: {
          title: 'Connections awaiting CONNACK',
          description:
            'Connections not yet accepted (CONNECT not received or being authenticated) at once; more are closed at once.',
          type: 'integer',
          minimum: 1,
          maximum: 100000,
          default: 256,
        },
        external: {
          title: 'External broker',
          description: 'Connect to this broker (Mosquitto, EMQX) instead of embedding aedes; null embeds.',
          default: null,
          oneOf: [
            { type: 'null' },
            {
              type: 'object',
              additionalProperties: false,
              required: ['url'],
              properties: {
                url: {
                  title: 'Broker URL',
                  description: 'mqtt://, mqtts://, ws:// or wss://',
                  type: 'string',
                },
                username: { title: 'Username', description: 'Broker username.', type: 'string' },
                password: { title: 'Password', description: 'Broker password.', type: 'string' },
                caFile: {
                  title: 'CA certificate file',
                  description: 'PEM file of the CA that signed the broker certificate (a private CA).',
                  type: 'string',
                },
                rejectUnauthorized: {
                  title: 'Verify TLS',
                  description: 'Verify the broker certificate.',
                  type: 'boolean',
                  default: true,
                },
              },
            },
          ],
        },
      },
    },
    store: {
      title: 'Store',
      description: 'Persistence of the lowdb JSON files.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        coalesceMs: {
          title: 'Write coalescing window (ms)',
          description: 'High-rate state is written at most once per window.',
          type: 'integer',
          minimum: 0,
          maximum: 60000,
          default: 1000,
        },
      },
    },
    lifecycle: {
      title: 'Lifecycle',
      description: 'Start and stop bounds.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        pluginStartTimeoutMs: {
          title: 'Plugin start timeout (ms)',
          description: 'A plugin whose start takes longer is treated as failed.',
          type: 'integer',
          minimum: 100,
          default: 10000,
        },
        shutdownGraceMs: {
          title: 'Shutdown grace period (ms)',
          description: 'After SIGTERM the process exits at the latest after this long.',
          type: 'integer',
          minimum: 100,
          maximum: 60000,
          default: 4500,
        },
      },
    },
    secrets: {
      title: 'Secrets',
      description:
        'The one store of secrets plugins keep (Hue application keys, the Zigbee network key, upstream credentials), encrypted in secrets.json with a key kept apart from the data files.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        keyFile: {
          title: 'Key file',
          description:
            'File holding the 256-bit key as 64 hex digits. Unset: the systemd credential hearth-secrets-key when the service passes one, else keys/secrets.key in the data directory (created on first start, left out of backups).',
          type: 'string',
          minLength: 1,
        },
      },
    },
    metrics: {
      title: 'Metrics',
      description: 'Basic authentication of /metrics on the admin listener.',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        username: {
          title: 'Username',
          description: 'Basic-auth user name.',
          type: 'string',
          default: 'metrics',
        },
        password: {
          title: 'Password',
          description: 'Basic-auth password; when unset the admin key is the password.',
          type: 'string',
          minLength: 8,
        },
      },
    },
    plugins: {
      title: 'Plugins',
      description: 'One slice per plugin, keyed by plugin name; each plugin validates its own slice.',
      type: 'object',
      default: {},
    },
  },
} as const satisfies JsonSchema;

/** Keys the loader itself reads in every plugin slice. */
export const pluginLoaderProperties: Record<string, JsonSchema> = {
  enabled: { title: 'Enabled', description: 'Start this plugin.', type: 'boolean', default: true },
  required: {
    title: 'Required',
    description: 'When true, a failure to start this plugin stops the hub instead of disabling the plugin.',
    type: 'boolean',
    default: false,
  },
};
