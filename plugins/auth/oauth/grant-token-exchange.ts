import { vendBrokeredToken } from '../broker/vend.ts';
import { type AccessTokenClaims, actorChain } from '../domain/access-token.ts';
import type { DpopProof } from '../domain/dpop.ts';
import { isSubset, parseScope } from '../domain/scopes.ts';
import { type AuthServices, findResource } from '../services.ts';
import { isLive } from '../sites/verify.ts';
import { own } from '../state/collections.ts';
import type { Client, ConsentGrant, Resource } from '../state/model.ts';
import { activeGrant } from '../web/authorize.ts';
import {
  invalidGrant,
  invalidRequest,
  invalidScope,
  invalidTarget,
  oauthError,
  unauthorizedClient,
} from './errors.ts';
import { issueAccessToken, tokenType } from './issue.ts';
import { type Params, param, required, resourceParam } from './params.ts';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const TOKEN_TYPES = [ACCESS_TOKEN_TYPE, JWT_TYPE];

/** RFC 8693 §2.2.1 (`tokenExchangeResponseDTO`). */
export interface TokenExchangeResponse {
  access_token: string;
  issued_token_type: typeof ACCESS_TOKEN_TYPE;
  /** Bearer or DPoP for our tokens; a brokered upstream token keeps its provider's type. */
  token_type: string;
  expires_in: number;
  scope: string;
}

/** One of our live access tokens, presented in a form field; null when it is not one. */
async function liveToken(s: AuthServices, token: string): Promise<AccessTokenClaims | null> {
  const claims = await s.signer.verify(token);
  return claims && isLive(s, claims) ? claims : null;
}

/**
 * `consent_required` with the consent page the user should see and why (spec: `consent_missing` when the
 * user never authorized that client for the resource, `scope_insufficient` when only some of the scopes).
 * The URL is an authorization request the client completes with its redirect URI, PKCE and state.
 */
function consentRequired(
  s: AuthServices,
  cause: 'consent_missing' | 'scope_insufficient',
  clientId: string,
  target: Resource,
  scopes: string[],
) {
  const url = new URL(`${s.issuer()}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('resource', target.uri);
  url.searchParams.set('scope', scopes.join(' '));
  return oauthError(
    400,
    'consent_required',
    cause === 'consent_missing'
      ? 'the user has not authorized this for the target resource'
      : 'the user authorized only some of the requested scopes for the target resource',
    { body: { consent_url: url.toString(), cause } },
  );
}

interface ScopeDecision {
  allowed: string[];
  consentClientId: string;
  consentGrant?: ConsentGrant;
}

/**
 * What the subject token may become at the target: the same resource narrows; a fronting link maps the
 * subject's scopes; otherwise the user's consent for the target (given to the client whose consent the
 * subject token rests on) bounds it, and its absence is `consent_required`.
 */
function decideScopes(
  s: AuthServices,
  subject: AccessTokenClaims,
  source: Resource,
  target: Resource,
  requested: string[] | undefined,
): ScopeDecision {
  const parent = s.issuances.raw(subject.jti);
  const inherited = parent?.consent_client_id ?? '';
  const subjectScopes = subject.scope.split(' ').filter(Boolean);
  const offered = target.scopes.map((x) => x.name);
  if (source.id === target.id) return { allowed: subjectScopes, consentClientId: inherited };
  const link = own(s.data.data.fronting, `${source.id} ${target.id}`);
  if (link) {
    const mapped = new Set<string>();
    for (const sc of subjectScopes)
      for (const t of Object.hasOwn(link.scope_map, sc) ? (link.scope_map[sc] ?? []) : []) mapped.add(t);
    return { allowed: [...mapped].filter((x) => offered.includes(x)), consentClientId: inherited };
  }
  const user = own(s.data.data.users, subject.sub);
  if (!user) throw invalidTarget('no fronting link leads from the subject token’s resource to the target');
  const consentClient = inherited || subject.client_id;
  const wanted = requested ?? offered;
  const grant = activeGrant(s, user.id, consentClient, target.id);
  if (!grant) throw consentRequired(s, 'consent_missing', consentClient, target, wanted);
  const missing = wanted.filter((x) => !grant.scopes.includes(x));
  if (requested && missing.length > 0)
    throw consentRequired(s, 'scope_insufficient', consentClient, target, missing);
  return {
    allowed: grant.scopes.filter((x) => offered.includes(x)),
    consentClientId: consentClient,
    consentGrant: grant,
  };
}

/** RFC 8693 token exchange: a token for another resource on behalf of the same subject. */
export async function tokenExchangeGrant(
  s: AuthServices,
  client: Client,
  body: Params,
  proof: DpopProof | null,
): Promise<TokenExchangeResponse> {
  if (!client.grant_types.includes(TOKEN_EXCHANGE))
    throw unauthorizedClient('token exchange is not among the grant types of this client');
  if (client.token_endpoint_auth_method === 'none')
    throw unauthorizedClient('public clients cannot exchange tokens');
  const subjectToken = required(body, 'subject_token');
  if (!TOKEN_TYPES.includes(required(body, 'subject_token_type')))
    throw invalidRequest('subject_token_type must be an access token type');
  const requestedType = param(body, 'requested_token_type');
  if (requestedType !== undefined && requestedType !== ACCESS_TOKEN_TYPE)
    throw invalidRequest('only access tokens are issued');

  const subject = await liveToken(s, subjectToken);
  if (!subject) throw invalidGrant('the subject token is not valid');
  // A sender-constrained subject token is exchanged only by the holder of its key.
  if (subject.cnf && proof?.jkt !== subject.cnf.jkt)
    throw invalidGrant('the subject token is bound to a DPoP key this request does not prove');
  const source = Object.values(s.data.data.resources).find((r) => r.uri === subject.aud);
  if (!source) throw invalidGrant('the subject token’s resource no longer exists');
  // Runtime policy: the client the token was issued to, or one allowed to act as its resource.
  if (subject.client_id !== client.id && !source.policy.runtime.client_ids.includes(client.id))
    throw invalidGrant('this client may not exchange tokens issued for that resource');

  const actorToken = param(body, 'actor_token');
  if (actorToken !== undefined) {
    if (!TOKEN_TYPES.includes(required(body, 'actor_token_type')))
      throw invalidRequest('actor_token_type must be an access token type');
    const actor = await liveToken(s, actorToken);
    // RFC 8693 §2.1: the actor token stands for the acting party, which is the authenticated client.
    if (!actor || actor.client_id !== client.id || actor.sub !== client.id)
      throw invalidGrant('the actor token is not a token of this client');
  }

  // RFC 8693 §2.1: `resource` and `audience` both name where the token is to be used. Both are honoured:
  // each must name a resource here, the same one (a token serves one), else invalid_target (§2.2.2).
  const resourceRef = resourceParam(body);
  const audienceRef = param(body, 'audience');
  const ref = resourceRef ?? audienceRef;
  if (!ref) throw invalidTarget('resource or audience is required');
  const target = findResource(s, ref);
  if (!target) throw invalidTarget('unknown resource');
  if (
    resourceRef !== undefined &&
    audienceRef !== undefined &&
    findResource(s, audienceRef)?.id !== target.id
  )
    throw invalidTarget('resource and audience name different targets; a token serves one');
  // Exchange policy of the target: empty means any client.
  const allowedClients = target.policy.exchange.allowed_client_ids;
  if (allowedClients.length > 0 && !allowedClients.includes(client.id))
    throw unauthorizedClient('the target resource does not allow this client to exchange tokens for it');

  const chain = [...actorChain(subject.act), client.id];
  const maxDepth = s.config.token_exchange.max_chain_depth;
  if (chain.length > maxDepth)
    throw invalidGrant(`the delegation chain would exceed max_chain_depth (${maxDepth})`);

  const requestedScope = param(body, 'scope');
  const requested = requestedScope === undefined ? undefined : parseScope(requestedScope);
  // A broker resource's token is the user's upstream token (broker/vend.ts), not one we sign.
  if (target.backend_kind === 'broker')
    return vendBrokeredToken(s, { client, subject, target, requested, chain });
  const decision = decideScopes(s, subject, source, target, requested);
  const scopes = requested ?? decision.allowed;
  if (requested && !isSubset(requested, decision.allowed))
    throw invalidScope('the requested scope exceeds what the subject token can be exchanged for');
  if (scopes.length === 0) throw invalidScope('the subject token yields no scope at the target');

  const now = Math.floor(Date.now() / 1000);
  // Never beyond the subject token: the delegation ends when what it was made from does.
  const ttl = Math.min(s.config.token_exchange.ttl, subject.exp - now);
  if (ttl <= 0) throw invalidGrant('the subject token has expired');
  const userId = own(s.data.data.users, subject.sub) ? subject.sub : null;
  const parentIssuance = s.issuances.raw(subject.jti);
  const consentGrantId = decision.consentGrant?.id ?? parentIssuance?.consent_grant_id;
  const jkt = proof?.jkt;
  const { token } = await issueAccessToken(s, {
    client,
    userId,
    ...(userId ? {} : { subject: subject.sub }),
    resource: target,
    scopes,
    ttlSec: ttl,
    jkt,
    ...(consentGrantId ? { consentGrantId } : {}),
    ...(parentIssuance?.family_id ? { familyId: parentIssuance.family_id } : {}),
    exchange: {
      parentJti: subject.jti,
      chain,
      agentId: client.agent ? client.id : undefined,
      consentClientId: decision.consentClientId,
    },
    // The subject token revoked (or its consent withdrawn) while this one was being signed.
    stillValid: () =>
      isLive(s, subject) &&
      !(decision.consentGrant && own(s.data.data.consent_grants, decision.consentGrant.id)?.revoked_at),
  });
  void s.audit.record('token.exchanged', {
    client_id: client.id,
    actor_id: subject.sub,
    detail: `${source.slug} -> ${target.slug}`,
  });
  return {
    access_token: token,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: tokenType(jkt),
    expires_in: ttl,
    scope: scopes.join(' '),
  };
}
