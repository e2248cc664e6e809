import { redirectUriProblem } from '../domain/redirect-uri.ts';
import { isScopeToken, parseScope } from '../domain/scopes.ts';
import { hashSecret, newId, randomToken } from '../domain/secrets.ts';
import type { AuthMethod, Client } from './model.ts';

export const AUTH_METHODS: readonly AuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
export const CLIENT_GRANTS = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
];

/** A validation failure: the field and the reason (mapped to 400 by the caller's error shape). */
export class ClientMetadataError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientInput {
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  scope: string;
  resources: string[];
  application_type: 'web' | 'native';
  agent: boolean;
  agent_description: string;
  source: Client['registration_source'];
  /** OpenID Connect Registration §2; undefined means the default (RS256). */
  id_token_signed_response_alg?: string | undefined;
}

export const ID_TOKEN_ALGS = ['RS256', 'ES256'] as const;
/** The algorithm a client's ID tokens are signed with (OpenID Connect Registration §2 default: RS256). */
export const idTokenAlg = (c: Pick<Client, 'id_token_signed_response_alg'>): 'RS256' | 'ES256' =>
  c.id_token_signed_response_alg ?? 'RS256';

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export function asStringArray(v: unknown, field: string): string[] {
  if (!strings(v)) throw new ClientMetadataError(field, `${field} must be an array of strings`);
  return [...new Set(v)];
}

/** Checks the metadata that both surfaces (DCR and admin) accept. */
export function validateClientInput(c: ClientInput): void {
  if (c.name.trim().length === 0 || c.name.length > 200)
    throw new ClientMetadataError('client_name', 'client_name must be 1–200 characters');
  if (!AUTH_METHODS.includes(c.token_endpoint_auth_method as AuthMethod)) {
    throw new ClientMetadataError(
      'token_endpoint_auth_method',
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`,
    );
  }
  const unknown = c.grant_types.filter((g) => !CLIENT_GRANTS.includes(g));
  if (unknown.length > 0)
    throw new ClientMetadataError('grant_types', `unsupported grant types: ${unknown.join(', ')}`);
  if (c.grant_types.length === 0)
    throw new ClientMetadataError('grant_types', 'grant_types must not be empty');
  const code = c.grant_types.includes('authorization_code');
  // RFC 9700 §2.1.2: only the code response type
  if (c.response_types.some((r) => r !== 'code'))
    throw new ClientMetadataError('response_types', 'only the code response type is supported');
  if (code !== c.response_types.includes('code')) {
    throw new ClientMetadataError(
      'response_types',
      'response_types must be [code] exactly when authorization_code is granted',
    );
  }
  if (code && c.redirect_uris.length === 0)
    throw new ClientMetadataError('redirect_uris', 'redirect_uris are required for authorization_code');
  for (const uri of c.redirect_uris) {
    const problem = redirectUriProblem(uri, c.application_type);
    if (problem) throw new ClientMetadataError('redirect_uris', problem);
  }
  if (c.grant_types.includes('client_credentials') && c.token_endpoint_auth_method === 'none') {
    throw new ClientMetadataError(
      'token_endpoint_auth_method',
      'client_credentials needs a confidential client',
    );
  }
  if (!parseScope(c.scope).every(isScopeToken))
    throw new ClientMetadataError('scope', 'scope contains invalid characters');
  const alg = c.id_token_signed_response_alg;
  if (alg !== undefined && !(ID_TOKEN_ALGS as readonly string[]).includes(alg))
    throw new ClientMetadataError(
      'id_token_signed_response_alg',
      `id_token_signed_response_alg must be one of ${ID_TOKEN_ALGS.join(', ')}`,
    );
  if (c.agent_description.length > 255)
    throw new ClientMetadataError('agent_description', 'agent_description is at most 255 characters');
}

/** Builds a client record; the secret (when the client is confidential) is returned once, stored hashed. */
export function buildClient(c: ClientInput, pepper: Buffer): { client: Client; secret: string | undefined } {
  validateClientInput(c);
  const now = new Date().toISOString();
  const method = c.token_endpoint_auth_method as AuthMethod;
  const secret = method === 'none' ? undefined : randomToken();
  const client: Client = {
    id: newId(),
    name: c.name,
    redirect_uris: [...new Set(c.redirect_uris)],
    grant_types: [...new Set(c.grant_types)],
    response_types: [...new Set(c.response_types)],
    token_endpoint_auth_method: method,
    scope: parseScope(c.scope).join(' '),
    resources: c.resources,
    status: 'active',
    registration_source: c.source,
    application_type: c.application_type,
    agent: c.agent,
    agent_description: c.agent_description,
    cimd_url: '',
    ...(c.id_token_signed_response_alg
      ? { id_token_signed_response_alg: c.id_token_signed_response_alg as 'RS256' | 'ES256' }
      : {}),
    ...(secret ? { secret_hash: hashSecret(pepper, secret) } : {}),
    issued_at: now,
    updated_at: now,
  };
  return { client, secret };
}

/** The admin view of a client: never the secret hash. */
export function clientView(c: Client) {
  return {
    id: c.id,
    name: c.name,
    redirect_uris: c.redirect_uris,
    grant_types: c.grant_types,
    response_types: c.response_types,
    token_endpoint_auth_method: c.token_endpoint_auth_method,
    scope: c.scope,
    resources: c.resources,
    status: c.status,
    registration_source: c.registration_source,
    application_type: c.application_type,
    agent: c.agent,
    agent_description: c.agent_description,
    cimd_url: c.cimd_url,
    id_token_signed_response_alg: idTokenAlg(c),
    issued_at: c.issued_at,
    updated_at: c.updated_at,
  };
}
