import type { AccessTokenClaims } from '../domain/access-token.ts';
import { type AuthServices, findResource } from '../services.ts';
import { own } from '../state/collections.ts';

export interface VerifiedToken {
  sub: string;
  client_id: string;
  aud: string;
  scopes: string[];
  jti: string;
  exp: number;
  /** The resource the token is for (its id). */
  resource_id: string;
}

export interface VerifyOptions {
  /** Resource id, slug or URI the token must be for (`aud`). */
  resource?: string;
  /** A scope the token must carry. */
  scope?: string;
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
    return {
      sub: claims.sub,
      client_id: claims.client_id,
      aud: claims.aud,
      scopes,
      jti: claims.jti,
      exp: claims.exp,
      resource_id: resource.id,
    };
  };
}

export type VerifyAccessToken = ReturnType<typeof createVerifier>;
