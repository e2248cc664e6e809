import { createHash } from 'node:crypto';
import { safeEqual, sha256 } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import type { Client } from '../state/model.ts';
import { invalidGrant, invalidRequest, unauthorizedClient } from './errors.ts';
import { issueAccessToken, issueRefreshToken, revokeFamily, revokeJti, type TokenResponse } from './issue.ts';
import { type Params, param, required } from './params.ts';

// RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 6749 §4.1.3 with PKCE S256 required for every client (RFC 7636 §4.6). */
export async function authorizationCodeGrant(
  s: AuthServices,
  client: Client,
  body: Params,
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
    // RFC 6749 §4.1.2: a code used twice is refused and the tokens issued from it are revoked
    const { jti, family_id } = record.redeemed;
    await revokeJti(s, jti);
    if (family_id) await revokeFamily(s, family_id);
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

  const user = s.data.data.users[record.user_id];
  const resource = s.data.data.resources[record.resource_id];
  const grant = s.data.data.consent_grants[record.consent_grant_id];
  if (user?.status !== 'active' || !resource || !grant || grant.revoked_at) {
    throw invalidGrant('the authorization is no longer valid');
  }
  // Mark first so a concurrent second redemption sees it.
  record.redeemed = { jti: '', exp: 0, family_id: null };
  const ttl = s.config.access_token_ttl;
  const base = { client, userId: user.id, resource, scopes: record.scopes, consentGrantId: grant.id };
  let refresh: { token: string; familyId: string } | undefined;
  if (client.grant_types.includes('refresh_token')) refresh = issueRefreshToken(s, base);
  const { token, claims } = await issueAccessToken(s, {
    ...base,
    ttlSec: ttl,
    ...(refresh ? { familyId: refresh.familyId } : {}),
  });
  record.redeemed = { jti: claims.jti, exp: claims.exp * 1000, family_id: refresh?.familyId ?? null };
  void s.audit.record('token.issued', { client_id: client.id, actor_id: user.id, detail: resource.slug });
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: ttl,
    scope: record.scopes.join(' '),
    ...(refresh ? { refresh_token: refresh.token } : {}),
  };
}

/** RFC 6749 §6 with rotation on every use; reuse of a rotated token revokes the family (RFC 9700 §4.14.2). */
export async function refreshTokenGrant(
  s: AuthServices,
  client: Client,
  body: Params,
): Promise<TokenResponse> {
  if (!client.grant_types.includes('refresh_token')) {
    throw unauthorizedClient('refresh_token is not among the grant types of this client');
  }
  const presented = required(body, 'refresh_token');
  const hash = sha256(presented);
  const record = s.refresh.data.tokens[hash];
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
  const user = s.data.data.users[record.user_id];
  const resource = s.data.data.resources[record.resource_id];
  const grant = s.data.data.consent_grants[record.consent_grant_id];
  if (user?.status !== 'active' || !resource || !grant || grant.revoked_at) {
    void s.audit.record('token.refresh_denied', { client_id: client.id, actor_id: record.user_id });
    throw invalidGrant('the authorization is no longer valid');
  }
  // RFC 6749 §6: a narrower scope may be requested, never a wider one
  const requested = param(body, 'scope');
  const scopes = requested === undefined ? record.scopes : requested.split(' ').filter(Boolean);
  if (!scopes.every((x) => record.scopes.includes(x))) throw invalidGrant('scope exceeds the original grant');
  s.refresh.update((d) => {
    const r = d.tokens[hash];
    if (r) r.used_at = Date.now();
  });
  const base = { client, userId: user.id, resource, consentGrantId: grant.id };
  const next = issueRefreshToken(s, { ...base, scopes: record.scopes, familyId: record.family_id });
  const ttl = s.config.access_token_ttl;
  const { token } = await issueAccessToken(s, { ...base, scopes, ttlSec: ttl, familyId: record.family_id });
  void s.audit.record('token.refreshed', { client_id: client.id, actor_id: user.id });
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: ttl,
    scope: scopes.join(' '),
    refresh_token: next.token,
  };
}
