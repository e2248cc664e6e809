import { createHash } from 'node:crypto';
import type { DpopProof } from '../domain/dpop.ts';
import { isSubset, parseScope } from '../domain/scopes.ts';
import { newId, safeEqual, sha256 } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { idTokenAlg } from '../state/client-factory.ts';
import { own } from '../state/collections.ts';
import type { Client, ConsentGrant, Resource, User } from '../state/model.ts';
import { invalidGrant, invalidRequest, invalidScope, invalidTarget, unauthorizedClient } from './errors.ts';
import { issueAccessToken, issueRefreshToken, revokeFamily, type TokenResponse, tokenType } from './issue.ts';
import { type Params, param, required, resourceParam } from './params.ts';

// RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * RFC 8707 §2.2 on the code and refresh grants: the token is for the resource the user authorized. A
 * `resource` naming anything else (or several resources) is `invalid_target`; without one, that resource.
 */
function checkResource(body: Params, granted: Resource): void {
  const v = resourceParam(body);
  if (v !== undefined && v !== granted.uri) throw invalidTarget('the grant was made for another resource');
}

/** The parties of a delegated grant, or null when any of them is gone, inactive or revoked. */
function liveParties(
  s: AuthServices,
  ids: { user_id: string; resource_id: string; consent_grant_id: string },
): { user: User; resource: Resource; grant: ConsentGrant } | null {
  const user = own(s.data.data.users, ids.user_id);
  const resource = own(s.data.data.resources, ids.resource_id);
  const grant = own(s.data.data.consent_grants, ids.consent_grant_id);
  if (user?.status !== 'active' || !resource || !grant || grant.revoked_at) return null;
  return { user, resource, grant };
}

/** A consent that was narrowed since the code or refresh token was issued narrows what it yields. */
const stillConsented = (scopes: readonly string[], grant: ConsentGrant) =>
  scopes.filter((x) => grant.scopes.includes(x));

/**
 * RFC 9449 §5: a public client's refresh token is bound to the DPoP key of the request that got it (the
 * client has no other credential to tie it to); a confidential client's is tied to its authentication.
 */
const refreshBinding = (client: Client, proof: DpopProof | null): string | undefined =>
  client.token_endpoint_auth_method === 'none' ? proof?.jkt : undefined;

/** RFC 6749 §4.1.3 with PKCE S256 required for every client (RFC 7636 §4.6). */
export async function authorizationCodeGrant(
  s: AuthServices,
  client: Client,
  body: Params,
  proof: DpopProof | null = null,
): Promise<TokenResponse> {
  if (!client.grant_types.includes('authorization_code')) {
    throw unauthorizedClient('authorization_code is not among the grant types of this client');
  }
  const code = required(body, 'code');
  const redirectUri = required(body, 'redirect_uri');
  const verifier = param(body, 'code_verifier');
  const record = s.codes.get(code);
  if (!record || record.client_id !== client.id) throw invalidGrant('invalid authorization code');
  if (record.redeemed) {
    // RFC 6749 §4.1.2, RFC 9700 §4.5: a code used twice is refused and everything issued from it is
    // revoked — also what a redemption still in flight is issuing (it checks `reused` when done).
    record.redeemed.reused = true;
    await revokeFamily(s, record.redeemed.family_id);
    void s.audit.record('auth_code.reused', { client_id: client.id, actor_id: record.user_id });
    throw invalidGrant('authorization code already used');
  }
  if (record.expires_at < Date.now()) throw invalidGrant('authorization code expired');
  if (record.redirect_uri !== redirectUri)
    throw invalidGrant('redirect_uri does not match the authorization request');
  if (!verifier) throw invalidRequest('code_verifier is required'); // RFC 9700 §2.1.1: PKCE for every client
  if (!VERIFIER.test(verifier)) throw invalidRequest('malformed code_verifier');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  if (!safeEqual(challenge, record.code_challenge)) throw invalidGrant('PKCE verification failed'); // RFC 7636 §4.6
  // RFC 9449 §10: a code bound with dpop_jkt needs a proof made with that key. Checked before the code is
  // marked, so a thief holding the code but not the key cannot use it up.
  if (record.dpop_jkt && proof?.jkt !== record.dpop_jkt)
    throw invalidGrant('the authorization code is bound to another DPoP key');

  const parties = liveParties(s, record);
  if (!parties) throw invalidGrant('the authorization is no longer valid');
  const { user, resource, grant } = parties;
  checkResource(body, resource);
  const scopes = stillConsented(record.scopes, grant);
  if (scopes.length === 0) throw invalidGrant('the consent no longer covers the requested scope');

  // Marked in the same turn as the checks above, before the first await, so a concurrent redemption
  // always sees it. Every token issued from the code joins this family.
  const redeemed = { family_id: newId(), reused: false };
  record.redeemed = redeemed;
  const ttl = s.config.access_token_ttl;
  const base = { client, userId: user.id, resource, scopes, consentGrantId: grant.id };
  const jkt = proof?.jkt;
  const refresh = client.grant_types.includes('refresh_token')
    ? issueRefreshToken(s, { ...base, familyId: redeemed.family_id, jkt: refreshBinding(client, proof) })
    : undefined;
  const { token } = await issueAccessToken(s, {
    ...base,
    jkt,
    ttlSec: ttl,
    familyId: redeemed.family_id,
    stillValid: () => !redeemed.reused && liveParties(s, record) !== null,
  });
  void s.audit.record('token.issued', { client_id: client.id, actor_id: user.id, detail: resource.slug });
  // OpenID Connect Core §3.1.3.3: an ID token when `openid` was granted (not on refresh, §12.2 allows that).
  const idToken = scopes.includes('openid')
    ? await s.signer.idToken({
        sub: user.id,
        clientId: client.id,
        ttlSec: ttl,
        authTime: record.auth_time,
        nonce: record.nonce,
        accessToken: token,
        alg: idTokenAlg(client),
      })
    : undefined;
  return {
    access_token: token,
    token_type: tokenType(jkt),
    expires_in: ttl,
    scope: scopes.join(' '),
    ...(refresh ? { refresh_token: refresh.token } : {}),
    ...(idToken ? { id_token: idToken } : {}),
  };
}

/** RFC 6749 §6 with rotation on every use; reuse of a rotated token revokes the family (RFC 9700 §4.14.2). */
export async function refreshTokenGrant(
  s: AuthServices,
  client: Client,
  body: Params,
  proof: DpopProof | null = null,
): Promise<TokenResponse> {
  if (!client.grant_types.includes('refresh_token')) {
    throw unauthorizedClient('refresh_token is not among the grant types of this client');
  }
  const presented = required(body, 'refresh_token');
  const hash = sha256(presented);
  const record = own(s.refresh.data.tokens, hash);
  if (!record || record.client_id !== client.id) throw invalidGrant('invalid refresh token');
  if (record.used_at) {
    await revokeFamily(s, record.family_id);
    void s.audit.record('family.revoked', {
      client_id: client.id,
      actor_id: record.user_id,
      detail: 'reuse',
    });
    throw invalidGrant('refresh token already used; the token family is revoked');
  }
  if (record.revoked_at || record.expires_at < Date.now()) throw invalidGrant('invalid refresh token');
  // RFC 9449 §5: a bound refresh token needs a proof made with its key. Checked before the token is used
  // up, so a thief without the key cannot burn the owner's token (or its family).
  if (record.dpop_jkt && proof?.jkt !== record.dpop_jkt)
    throw invalidGrant('the refresh token is bound to another DPoP key');
  const parties = liveParties(s, record);
  if (!parties) {
    void s.audit.record('token.refresh_denied', { client_id: client.id, actor_id: record.user_id });
    throw invalidGrant('the authorization is no longer valid');
  }
  const { user, resource, grant } = parties;
  checkResource(body, resource);
  const available = stillConsented(record.scopes, grant);
  if (available.length === 0) throw invalidGrant('the consent no longer covers any scope of this token');
  // RFC 6749 §6: a narrower scope may be requested, never a wider one (§5.2: invalid_scope)
  const requested = param(body, 'scope');
  const scopes = requested === undefined ? available : parseScope(requested);
  if (scopes.length === 0 || !isSubset(scopes, available))
    throw invalidScope('scope exceeds what the user granted');
  s.refresh.update((d) => {
    const r = own(d.tokens, hash);
    if (r) r.used_at = Date.now();
  });
  const base = { client, userId: user.id, resource, consentGrantId: grant.id };
  // The next refresh token carries what is still consented: a narrowed consent narrows the family.
  // A bound family stays bound; an unbound public family becomes bound once a proof comes along.
  const binding = record.dpop_jkt ?? refreshBinding(client, proof);
  const next = issueRefreshToken(s, { ...base, scopes: available, familyId: record.family_id, jkt: binding });
  const nextHash = sha256(next.token);
  const ttl = s.config.access_token_ttl;
  const jkt = proof?.jkt;
  const { token } = await issueAccessToken(s, {
    ...base,
    jkt,
    scopes,
    ttlSec: ttl,
    familyId: record.family_id,
    // Revoked while this token was being signed (reuse, logout of the user, consent withdrawn).
    stillValid: () => !own(s.refresh.data.tokens, nextHash)?.revoked_at && liveParties(s, record) !== null,
  });
  void s.audit.record('token.refreshed', { client_id: client.id, actor_id: user.id });
  return {
    access_token: token,
    token_type: tokenType(jkt),
    expires_in: ttl,
    scope: scopes.join(' '),
    refresh_token: next.token,
  };
}
