import type { AccessTokenClaims } from '../domain/access-token.ts';
import { resourceProofHolds, type TokenPresentation } from '../oauth/dpop.ts';
import { type AuthServices, findResource } from '../services.ts';
import { own } from '../state/collections.ts';

export type { TokenPresentation };

export interface VerifiedToken {
  sub: string;
  client_id: string;
  aud: string;
  scopes: string[];
  jti: string;
  exp: number;
  /** The resource the token is for (its id). */
  resource_id: string;
  /** The DPoP key the token is bound to (RFC 9449 §6.1), when it is. */
  jkt?: string;
}

export interface VerifyOptions {
  /** Resource id, slug or URI the token must be for (`aud`). */
  resource?: string;
  /** A scope the token must carry. */
  scope?: string;
  /**
   * How the request presented the token. A DPoP-bound token is accepted only with the DPoP scheme and a
   * valid proof for this request; without this (MQTT passwords, callers that only have the token) a bound
   * token is refused, as is an unbound token presented with the DPoP scheme.
   */
  presentation?: TokenPresentation;
}

/**
 * Whether a token with valid signature and lifetime is still in force: not revoked, its client active and,
 * for delegated tokens, its user active (a suspended client or disabled user loses every token at once).
 * Shared by the in-process verifier and introspection so both give the same answer.
 */
export function isLive(
  s: AuthServices,
  claims: Pick<AccessTokenClaims, 'jti' | 'client_id' | 'sub'>,
): boolean {
  if (s.issuances.isRevoked(claims.jti)) return false;
  if (own(s.data.data.clients, claims.client_id)?.status !== 'active') return false;
  const user = own(s.data.data.users, claims.sub);
  return !user || user.status === 'active';
}

/**
 * In-process check of one of our access tokens: signature, `typ`, `iss`, `exp`, `aud`, scope,
 * revocation (in-memory set, effective at once), and that its client and user are still active.
 */
export function createVerifier(s: AuthServices) {
  const live = (claims: AccessTokenClaims): boolean => isLive(s, claims);
  return async function verifyAccessToken(
    token: string,
    opts: VerifyOptions = {},
  ): Promise<VerifiedToken | null> {
    const claims = await s.signer.verify(token);
    if (!claims || !live(claims)) return null;
    const resource = opts.resource
      ? findResource(s, opts.resource)
      : Object.values(s.data.data.resources).find((r) => r.uri === claims.aud);
    if (!resource || resource.uri !== claims.aud) return null;
    const scopes = claims.scope.split(' ').filter(Boolean);
    if (opts.scope && !scopes.includes(opts.scope)) return null;
    // Last, because a proof's jti is used up once checked.
    if (claims.cnf) {
      if (!resourceProofHolds(s.dpop, token, claims.cnf.jkt, opts.presentation)) return null;
    } else if (opts.presentation?.scheme === 'dpop') return null;
    return {
      sub: claims.sub,
      client_id: claims.client_id,
      aud: claims.aud,
      scopes,
      jti: claims.jti,
      exp: claims.exp,
      resource_id: resource.id,
      ...(claims.cnf ? { jkt: claims.cnf.jkt } : {}),
    };
  };
}

export type VerifyAccessToken = ReturnType<typeof createVerifier>;
