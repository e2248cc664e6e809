import type { AuthServices } from '../services.ts';
import { checkUpstreamUrl, UpstreamError } from '../upstream/http.ts';
import type { MetadataCache } from '../upstream/metadata.ts';
import type { BrokerProvider } from './model.ts';
import { configText } from './providers.ts';

/** How the connect flow talks to a broker provider, read from its `config_data`. */
export interface BrokerEndpoints {
  authorization_endpoint: URL;
  token_endpoint: URL;
  client_id: string;
  client_secret?: string;
  auth_method: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Asked for on every connect, besides the resource's upstream scopes. */
  scopes: string[];
}

const PROTOCOLS = ['oauth2', 'oidc'];

/**
 * The admin API stores `config_data` without looking at it; the connect flow reads it here. Protocols
 * `oauth2` and `oidc` are understood: `{authorization_endpoint, token_endpoint}` or `{issuer}` (endpoints
 * from its OpenID discovery document), `client_id`, optional `client_secret`, `token_endpoint_auth_method`
 * (`client_secret_basic` by default with a secret, `none` without) and `scopes` (array or space-separated).
 */
export async function brokerEndpoints(
  s: AuthServices,
  p: BrokerProvider,
  metadata: MetadataCache,
): Promise<BrokerEndpoints> {
  if (!PROTOCOLS.includes(p.protocol)) throw new UpstreamError(`protocol ${p.protocol} cannot be connected`);
  let c: Record<string, unknown>;
  try {
    const v = JSON.parse(configText(s, p)) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    c = v as Record<string, unknown>;
  } catch {
    throw new UpstreamError('config_data is not a JSON object');
  }
  if (typeof c.client_id !== 'string' || !c.client_id)
    throw new UpstreamError('config_data names no client_id');
  let authz = c.authorization_endpoint;
  let token = c.token_endpoint;
  if ((authz === undefined || token === undefined) && typeof c.issuer === 'string') {
    const meta = await metadata.get(c.issuer);
    authz ??= meta.authorization_endpoint.href;
    token ??= meta.token_endpoint.href;
  }
  const secret = typeof c.client_secret === 'string' && c.client_secret ? c.client_secret : undefined;
  const method = c.token_endpoint_auth_method ?? (secret ? 'client_secret_basic' : 'none');
  if (method !== 'client_secret_basic' && method !== 'client_secret_post' && method !== 'none')
    throw new UpstreamError('config_data.token_endpoint_auth_method is not supported');
  if (method !== 'none' && !secret) throw new UpstreamError('config_data names no client_secret');
  const scopes = Array.isArray(c.scopes)
    ? c.scopes.filter((x): x is string => typeof x === 'string')
    : typeof c.scopes === 'string'
      ? c.scopes.split(' ').filter(Boolean)
      : [];
  return {
    authorization_endpoint: checkUpstreamUrl(authz),
    token_endpoint: checkUpstreamUrl(token),
    client_id: c.client_id,
    ...(secret ? { client_secret: secret } : {}),
    auth_method: method,
    scopes,
  };
}

/** Client authentication for a token request to the provider (RFC 6749 §2.3.1). */
export function clientAuth(e: BrokerEndpoints): {
  form: Record<string, string>;
  headers: Record<string, string>;
} {
  if (e.auth_method === 'client_secret_basic' && e.client_secret) {
    const id = encodeURIComponent(e.client_id);
    const secret = encodeURIComponent(e.client_secret);
    return {
      form: {},
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    };
  }
  if (e.auth_method === 'client_secret_post' && e.client_secret)
    return { form: { client_id: e.client_id, client_secret: e.client_secret }, headers: {} };
  return { form: { client_id: e.client_id }, headers: {} };
}

const MAX_TOKEN = 8192;

/** Upstream credentials from a token response, or an UpstreamError (the body is never quoted). */
export function credentialsFrom(json: Record<string, unknown> | null, status: number) {
  const at = json?.access_token;
  if (status !== 200 || typeof at !== 'string' || !at || at.length > MAX_TOKEN) {
    const code = typeof json?.error === 'string' ? json.error.slice(0, 64) : `status ${status}`;
    throw new UpstreamError(`the provider's token endpoint refused (${code})`);
  }
  const rt = json?.refresh_token;
  const expiresIn = json?.expires_in;
  return {
    credentials: {
      access_token: at,
      token_type: typeof json?.token_type === 'string' ? json.token_type : 'Bearer',
      ...(typeof rt === 'string' && rt && rt.length <= MAX_TOKEN ? { refresh_token: rt } : {}),
      ...(typeof expiresIn === 'number' && expiresIn > 0
        ? { expires_at: Date.now() + expiresIn * 1000 }
        : {}),
    },
    scope: typeof json?.scope === 'string' ? json.scope.split(' ').filter(Boolean) : undefined,
    error: typeof json?.error === 'string' ? json.error : undefined,
  };
}
