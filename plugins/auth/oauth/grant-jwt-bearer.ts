import { createHash } from 'node:crypto';
import type { DpopProof } from '../domain/dpop.ts';
import { verifyWithKey } from '../domain/dpop.ts';
import { JwksFetchError } from '../domain/idp-keys.ts';
import { decodeJws } from '../domain/jws.ts';
import { isSubset, parseScope } from '../domain/scopes.ts';
import { type AuthServices, findResource } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Client, Idp } from '../state/model.ts';
import { invalidGrant, invalidScope, invalidTarget, unauthorizedClient } from './errors.ts';
import { issueAccessToken, type TokenResponse, tokenType } from './issue.ts';
import { type Params, param, required, resourceParam } from './params.ts';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** Clock skew allowed between the IdP and this server. */
export const ASSERTION_SKEW_SEC = 30;

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * RFC 7523 jwt-bearer with the Identity Assertion JWT Authorization Grant profile: a trusted IdP vouches
 * for a user to a client, and the client gets a token for one of our resources. Checks: `typ`, signature by
 * a key of the IdP named in `iss`, `aud` (one value: our issuer, or the IdP's configured audience),
 * `client_id` = the authenticated client, `exp`, `iat` within `max_assertion_age`, `jti` used once, then
 * the client's scope ceiling, the assertion's and request's scopes and the IdP's XAA policies. No refresh
 * token: the client presents a new assertion (the draft advises against refresh tokens here).
 */
export async function jwtBearerGrant(
  s: AuthServices,
  client: Client,
  body: Params,
  proof: DpopProof | null,
): Promise<TokenResponse> {
  if (!client.grant_types.includes(JWT_BEARER))
    throw unauthorizedClient('jwt-bearer is not among the grant types of this client');
  // ID-JAG: confidential clients only (public ones use the code flow).
  if (client.token_endpoint_auth_method === 'none')
    throw unauthorizedClient('public clients cannot use this grant');
  const assertion = required(body, 'assertion');
  const jws = decodeJws(assertion);
  if (!jws) throw invalidGrant('the assertion is not a JWT');
  const { header, payload: p } = jws;
  if (header.typ !== ID_JAG_TYP) throw invalidGrant(`the assertion must be of type ${ID_JAG_TYP}`);
  if (!str(p.iss)) throw invalidGrant('the assertion has no issuer');
  const idp: Idp | undefined = Object.values(s.data.data.idps).find((x) => x.issuer === p.iss);
  // One message for unknown and disabled issuers: the answer must not tell which issuers are trusted.
  if (!idp?.enabled) throw invalidGrant('the assertion issuer is not trusted');
  if (!str(header.kid)) throw invalidGrant('the assertion names no key (kid)');
  let key: Awaited<ReturnType<typeof s.idpKeys.key>>;
  try {
    key = await s.idpKeys.key(idp, header.kid);
  } catch (err) {
    if (err instanceof JwksFetchError) throw invalidGrant('the issuer’s keys could not be fetched');
    throw err;
  }
  if (!key || !verifyWithKey(header.alg, key.key, jws.input, jws.sig))
    throw invalidGrant('the assertion signature is invalid');

  const audience = idp.audience || s.issuer();
  const aud = Array.isArray(p.aud) && p.aud.length === 1 ? p.aud[0] : p.aud;
  if (aud !== audience) throw invalidGrant('the assertion is not for this server');
  if (p.client_id !== client.id) throw invalidGrant('the assertion was issued to another client');
  const now = Math.floor(Date.now() / 1000);
  if (typeof p.exp !== 'number' || p.exp <= now) throw invalidGrant('the assertion has expired');
  if (
    typeof p.iat !== 'number' ||
    p.iat > now + ASSERTION_SKEW_SEC ||
    p.iat < now - s.config.xaa.max_assertion_age
  )
    throw invalidGrant('the assertion is too old or from the future');
  // RFC 7523 §3 item 4 lets a server refuse an exp unreasonably far ahead: an ID-JAG is short-lived, and a
  // long one would hold its jti's replay slot for as long (a cache full of them would refuse everyone).
  const maxAge = s.config.xaa.max_assertion_age;
  if (p.exp - p.iat > maxAge) throw invalidGrant(`the assertion lives longer than ${maxAge} seconds`);
  if (!str(p.sub)) throw invalidGrant('the assertion has no subject');
  if (!str(p.jti)) throw invalidGrant('the assertion has no jti');
  // The assertion's key binding (draft §5): a proof with that key is required.
  const cnf = p.cnf && typeof p.cnf === 'object' ? (p.cnf as { jkt?: unknown }).jkt : undefined;
  if (cnf !== undefined && proof?.jkt !== cnf)
    throw invalidGrant('the assertion is bound to a DPoP key this request does not prove');

  const ref = resourceParam(body) ?? (str(p.resource) ? p.resource : undefined);
  if (!ref) throw invalidTarget('resource is required');
  if (str(p.resource) && p.resource !== ref) throw invalidTarget('the assertion is for another resource');
  const resource = findResource(s, ref);
  if (!resource) throw invalidTarget('unknown resource');

  // Scopes: client ceiling (spec rules 3–4) ∩ what the resource offers ∩ the assertion's ∩ the request's.
  const ceiling = parseScope(client.scope);
  const offered = resource.scopes.map((x) => x.name);
  const asserted = str(p.scope) ? parseScope(p.scope) : undefined;
  const requestedScope = param(body, 'scope');
  const requested = requestedScope === undefined ? undefined : parseScope(requestedScope);
  let scopes = ceiling.filter((x) => offered.includes(x) && (!asserted || asserted.includes(x)));
  if (requested) {
    if (!isSubset(requested, scopes))
      throw invalidScope('requested scope exceeds the client ceiling or the assertion');
    scopes = requested;
  }
  // XAA policies of the IdP: at least one enabled policy must admit the client and resource.
  const policies = Object.values(s.data.data.xaa_policies).filter(
    (x) =>
      x.enabled &&
      x.idp_id === idp.id &&
      (x.client_ids.length === 0 || x.client_ids.includes(client.id)) &&
      (x.resources.length === 0 || x.resources.some((r) => findResource(s, r)?.id === resource.id)),
  );
  if (policies.length === 0) throw invalidGrant('no cross-app access policy allows this');
  if (!policies.some((x) => x.scopes.length === 0)) {
    const allowed = new Set(policies.flatMap((x) => x.scopes));
    if (requested && !requested.every((x) => allowed.has(x)))
      throw invalidScope('a cross-app access policy does not allow the requested scope');
    scopes = scopes.filter((x) => allowed.has(x));
  }
  if (scopes.length === 0)
    throw invalidScope('no scope: the client ceiling, assertion and policies leave none');

  // The subject: a mapped local user; otherwise (auto_map) "<issuer>:<subject>", or refused (strict).
  const mapping = Object.values(s.data.data.xaa_subject_mappings).find(
    (m) => m.idp_id === idp.id && m.idp_subject === p.sub,
  );
  const user = mapping ? own(s.data.data.users, mapping.local_user_id) : undefined;
  if (mapping && user?.status !== 'active') throw invalidGrant('the mapped user is not active');
  if (!mapping && s.config.xaa.subject_mode === 'strict')
    throw invalidGrant('the subject is not mapped to a user');

  // Used once (checked last, so a refused assertion is not burnt), remembered until it expires.
  const replayKey = createHash('sha256').update(`${idp.id}\u0000${p.jti}`).digest('base64url');
  const seen = s.assertionReplay.add(replayKey, p.exp * 1000);
  if (seen === 'replay') throw invalidGrant('the assertion was already used');
  if (seen === 'full') throw invalidGrant('too many assertions in flight; retry shortly');
  if (seen === 'too_long') throw invalidGrant(`the assertion lives longer than ${maxAge} seconds`);

  const ttl = s.config.xaa.token_ttl;
  const jkt = proof?.jkt;
  const { token } = await issueAccessToken(s, {
    client,
    userId: user ? user.id : null,
    ...(user ? {} : { subject: `${idp.issuer}:${p.sub}` }),
    resource,
    scopes,
    ttlSec: ttl,
    jkt,
    act: { sub: idp.issuer },
  });
  void s.audit.record('jwt_bearer.issued', {
    client_id: client.id,
    actor_id: user?.id ?? '',
    detail: idp.issuer,
  });
  return { access_token: token, token_type: tokenType(jkt), expires_in: ttl, scope: scopes.join(' ') };
}
