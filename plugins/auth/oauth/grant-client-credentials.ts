import type { DpopProof } from '../domain/dpop.ts';
import { isSubset, parseScope } from '../domain/scopes.ts';
import { type AuthServices, findResource } from '../services.ts';
import type { Client, Resource } from '../state/model.ts';
import { invalidScope, invalidTarget, unauthorizedClient } from './errors.ts';
import { issueAccessToken, type TokenResponse, tokenType } from './issue.ts';
import { type Params, param, resourceParam } from './params.ts';

/** RFC 8707 §2: the `resource` names the audience; without it, the only resource there is. */
export function resolveResource(s: AuthServices, value: string | undefined): Resource {
  if (value === undefined) {
    const all = Object.values(s.data.data.resources);
    if (all.length === 1) return all[0]!;
    throw invalidTarget('resource is required');
  }
  const r = Object.values(s.data.data.resources).find((x) => x.uri === value);
  if (!r) throw invalidTarget('unknown resource');
  return r;
}

/** RFC 6749 §4.4, bounded by the client's scope ceiling (spec rules 3–4). */
export async function clientCredentialsGrant(
  s: AuthServices,
  client: Client,
  body: Params,
  proof: DpopProof | null = null,
): Promise<TokenResponse> {
  if (!client.grant_types.includes('client_credentials')) {
    throw unauthorizedClient('client_credentials is not among the grant types of this client');
  }
  if (client.token_endpoint_auth_method === 'none')
    throw unauthorizedClient('public clients cannot use this grant');
  const resource = resolveResource(s, resourceParam(body));
  if (client.resources.length > 0 && !client.resources.some((r) => findResource(s, r)?.id === resource.id)) {
    throw invalidTarget('this client may not request tokens for that resource');
  }
  const ceiling = parseScope(client.scope);
  const offered = resource.scopes.map((x) => x.name);
  const requested = param(body, 'scope');
  const scopes = requested === undefined ? ceiling.filter((x) => offered.includes(x)) : parseScope(requested);
  if (requested !== undefined && !isSubset(scopes, ceiling)) {
    throw invalidScope('requested scope exceeds the client scope ceiling (set by POST/PATCH /admin/clients)');
  }
  if (!isSubset(scopes, offered)) throw invalidScope('the resource does not offer the requested scope');
  if (scopes.length === 0)
    throw invalidScope('no scope: the client scope ceiling is empty for this resource');
  const ttl = s.config.client_credentials_ttl;
  const jkt = proof?.jkt;
  const { token } = await issueAccessToken(s, { client, userId: null, resource, scopes, ttlSec: ttl, jkt });
  // Success is recorded in the issuance log; the audit keeps the denials (one hot write per token).
  return { access_token: token, token_type: tokenType(jkt), expires_in: ttl, scope: scopes.join(' ') };
}
