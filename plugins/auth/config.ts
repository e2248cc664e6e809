import type { JsonSchema } from '../../core/sdk.ts';

export type DcrMode = 'open' | 'approved_redirects' | 'admin_only';

/** An upstream OpenID provider users may sign in with (`plugins.auth.oidc.providers[]`). */
export interface UpstreamProviderConfig {
  id: string;
  display_name: string;
  issuer: string;
  client_id: string;
  scope: string;
  link_verified_email: boolean;
  create_users: boolean;
}

export interface UpstreamOidcConfig {
  enabled: boolean;
  providers: UpstreamProviderConfig[];
}

/** The validated `plugins.auth` slice (ajv applies every default below). */
export interface AuthConfig {
  port: number;
  host: string;
  issuer: string;
  access_token_ttl: number;
  client_credentials_ttl: number;
  refresh_token_ttl: number;
  code_ttl: number;
  session_ttl: number;
  local_login: boolean;
  oidc: UpstreamOidcConfig;
  cookie_secure: boolean;
  default_client_scope: string;
  dcr: { mode: DcrMode; approved_redirects: string[] };
  rate_limit: {
    auth_fail_max: number;
    auth_fail_window: number;
    auth_lockout: number;
    client_fail_burst: number;
    client_fail_per_minute: number;
  };
  issuances: { max: number; retention_days: number };
  audit: { max: number; retention_days: number };
  dpop: { enabled: boolean; require_nonce: boolean; nonce_ttl: number; replay_cache_max: number };
  token_exchange: { enabled: boolean; max_chain_depth: number; ttl: number };
  xaa: {
    enabled: boolean;
    subject_mode: 'strict' | 'auto_map';
    max_assertion_age: number;
    jwks_cache_ttl: number;
    token_ttl: number;
  };
  cimd: { enabled: boolean; allow_private_networks: boolean; ca_file: string; max_clients: number };
}

const int = (title: string, description: string, def: number, minimum = 0): JsonSchema => ({
  type: 'integer',
  title,
  description,
  default: def,
  minimum,
});

export const configSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    port: int('Public port', 'TCP port of the authorization server (0 = ephemeral).', 9000),
    host: {
      type: 'string',
      title: 'Bind address',
      description: "Address to bind. Empty: the hub's address (HEARTH_HOST).",
      default: '',
    },
    issuer: {
      type: 'string',
      title: 'Issuer',
      description: 'Public base URL (RFC 8414 issuer). Empty: the bound listener URL.',
      default: '',
    },
    access_token_ttl: int('Access token lifetime', 'Seconds, code and refresh grants.', 900, 60),
    client_credentials_ttl: int('Machine token lifetime', 'Seconds, client_credentials grant.', 3600, 60),
    refresh_token_ttl: int('Refresh token lifetime', 'Seconds.', 604800, 60),
    code_ttl: int('Authorization code lifetime', 'Seconds.', 600, 10),
    session_ttl: int('Browser session lifetime', 'Seconds.', 86400, 60),
    local_login: {
      type: 'boolean',
      title: 'Local password login',
      description: 'When false, /login answers 404.',
      default: true,
    },
    oidc: {
      type: 'object',
      title: 'Upstream OpenID login',
      description:
        'Sign users in with upstream OpenID providers (/oidc/start). Client secrets are set with PUT /admin/oidc/providers/{id}/client-secret.',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'boolean',
          title: 'Enabled',
          description: 'Offer the providers on the login page and answer /oidc/start and /oidc/callback.',
          default: false,
        },
        providers: {
          type: 'array',
          title: 'Providers',
          description:
            'Upstream OpenID providers, offered on the login page in this order: {id, display_name, issuer, client_id, scope, link_verified_email, create_users} (plugins/auth/README.md).',
          default: [],
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'issuer', 'client_id'],
            properties: {
              id: {
                type: 'string',
                pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
                description: 'Short name used in URLs.',
              },
              display_name: {
                type: 'string',
                default: '',
                description: 'Shown on the button; empty: the id.',
              },
              issuer: { type: 'string', description: 'Issuer URL (https; http only on loopback).' },
              client_id: { type: 'string', description: 'The client id registered at the provider.' },
              scope: { type: 'string', default: 'openid email profile', description: 'Scopes asked for.' },
              link_verified_email: {
                type: 'boolean',
                default: false,
                description:
                  'Link a first sign-in to the local user with the same email, when the provider says it is verified.',
              },
              create_users: {
                type: 'boolean',
                default: false,
                description:
                  'Create a user for a first sign-in that links to nobody (only for a provider you control).',
              },
            },
          },
        },
      },
    },
    cookie_secure: {
      type: 'boolean',
      title: 'Secure cookies',
      description: 'Force the Secure flag on cookies (it is always set when the issuer is https).',
      default: false,
    },
    default_client_scope: {
      type: 'string',
      title: 'Default client scope',
      description: 'Ceiling stamped on dynamically registered user-delegated clients.',
      default: '',
    },
    dcr: {
      type: 'object',
      title: 'Dynamic client registration',
      description: 'Initial DCR settings; PATCH /admin/settings/dcr overrides them.',
      default: {},
      additionalProperties: false,
      properties: {
        mode: {
          type: 'string',
          enum: ['open', 'approved_redirects', 'admin_only'],
          title: 'Mode',
          description: 'open, approved_redirects or admin_only.',
          default: 'open',
        },
        approved_redirects: {
          type: 'array',
          items: { type: 'string' },
          title: 'Approved redirect URIs',
          description: 'Allowed redirect URIs in approved_redirects mode.',
          default: [],
        },
      },
    },
    rate_limit: {
      type: 'object',
      title: 'Login lockout and client-authentication limit',
      description:
        'Failed-login lockout per identity and client IP; failed client authentications per IP at /oauth/token, /oauth/introspect and /oauth/revoke.',
      default: {},
      additionalProperties: false,
      properties: {
        auth_fail_max: int('Failures before lockout', 'Count within the window.', 10, 1),
        auth_fail_window: int('Failure window', 'Seconds.', 600, 1),
        auth_lockout: int('Lockout duration', 'Seconds.', 900, 1),
        client_fail_burst: int(
          'Client-authentication failures at once',
          'Failed client authentications an IP may make before its requests get 429 slow_down.',
          20,
          1,
        ),
        client_fail_per_minute: int(
          'Client-authentication failures per minute',
          'How fast that allowance refills.',
          20,
          1,
        ),
      },
    },
    issuances: {
      type: 'object',
      title: 'Issuance records',
      description: 'Bounds of the issuance log.',
      default: {},
      additionalProperties: false,
      properties: {
        max: int(
          'Maximum records',
          'Oldest dropped first; the file is rewritten at most once per coalescing window.',
          10000,
          100,
        ),
        retention_days: int('Retention', 'Days.', 30, 1),
      },
    },
    audit: {
      type: 'object',
      title: 'Audit events',
      description: 'Bounds of the audit log.',
      default: {},
      additionalProperties: false,
      properties: {
        max: int('Maximum events', 'Oldest dropped first.', 20000, 100),
        retention_days: int('Retention', 'Days.', 90, 1),
      },
    },
    dpop: {
      type: 'object',
      title: 'DPoP',
      description: 'Sender-constrained tokens (RFC 9449) on the token endpoint and every resource.',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'boolean',
          title: 'Enabled',
          description: 'Accept DPoP proofs and bind tokens to their key; when false, proofs are ignored.',
          default: true,
        },
        require_nonce: {
          type: 'boolean',
          title: 'Require a server nonce',
          description: 'Token requests must carry a nonce from the DPoP-Nonce header (use_dpop_nonce).',
          default: false,
        },
        nonce_ttl: int('Nonce lifetime', 'Seconds a server nonce is accepted.', 300, 10),
        replay_cache_max: int(
          'Replay cache size',
          'Proof jtis remembered within their 60 s window; when full, new proofs are refused.',
          100000,
          1000,
        ),
      },
    },
    token_exchange: {
      type: 'object',
      title: 'Token exchange',
      description: 'RFC 8693 token exchange: delegation chains and fronting links.',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'boolean',
          title: 'Enabled',
          description: 'Accept the token-exchange grant and advertise it.',
          default: true,
        },
        max_chain_depth: int(
          'Maximum delegation depth',
          'Exchanges a token may be the result of (act claims nested, agent_chain length).',
          4,
          1,
        ),
        ttl: int(
          'Exchanged token lifetime',
          'Seconds; never beyond the expiry of the token it was exchanged from.',
          3600,
          60,
        ),
      },
    },
    xaa: {
      type: 'object',
      title: 'Cross-app access (jwt-bearer with ID-JAG)',
      description: 'Identity Assertion JWT Authorization Grants from trusted identity providers.',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'boolean',
          title: 'Enabled',
          description: 'Accept the jwt-bearer grant with ID-JAG assertions and advertise it.',
          default: true,
        },
        subject_mode: {
          type: 'string',
          enum: ['strict', 'auto_map'],
          title: 'Subject mode',
          description: 'strict: only mapped subjects get tokens; auto_map: others get sub "<issuer>:<sub>".',
          default: 'strict',
        },
        max_assertion_age: int('Maximum assertion age', 'Seconds since the assertion was issued.', 300, 10),
        jwks_cache_ttl: int(
          'JWKS cache lifetime',
          'Seconds an IdP key set is kept before refetching.',
          3600,
          60,
        ),
        token_ttl: int('Token lifetime', 'Seconds, tokens issued for an assertion.', 3600, 60),
      },
    },
    cimd: {
      type: 'object',
      title: 'Client ID Metadata Documents',
      description:
        'Clients whose client_id is an https URL of their metadata document, fetched by the hub when they first ask.',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'boolean',
          title: 'Enabled',
          description:
            'Accept URL client_ids and advertise client_id_metadata_document_supported. Off by default: an unauthenticated request then makes the hub fetch a URL.',
          default: false,
        },
        allow_private_networks: {
          type: 'boolean',
          title: 'Allow private networks',
          description:
            'Also fetch documents from loopback, private (RFC 1918, ULA) and link-local addresses (e.g. an app on the LAN).',
          default: false,
        },
        ca_file: {
          type: 'string',
          title: 'Extra CA file',
          description:
            'PEM file of a CA trusted for document hosts besides the system roots (a household CA).',
          default: '',
        },
        max_clients: int('Maximum clients', 'Clients known from metadata documents at once.', 1000, 1),
      },
    },
  },
};
