import { errors, jwtVerify } from 'jose';
import { createIdpKeyCache, JwksFetchError } from '../domain/idp-keys.ts';
import type { ProviderMetadata } from './metadata.ts';

/** Asymmetric algorithms only: never `none`, never HMAC (the client secret is not a signing key here). */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const SKEW_SEC = 60;
/** An ID token older than this is refused even when unexpired: it belongs to an earlier sign-in. */
const MAX_AGE_SEC = 600;

export class IdTokenError extends Error {}

export interface IdTokenClaims {
  iss: string;
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/**
 * Checks an upstream ID token (OpenID Connect Core §3.1.3.7): signature by a key of the provider's
 * discovered JWKS (cached with bounds, see domain/idp-keys.ts), `iss` the provider, `aud` containing our
 * client id (and `azp` it when there are several audiences), `exp`, `iat` recent, and `nonce` the one we sent.
 */
export function createIdTokenVerifier(jwksTtlSec: number) {
  const keys = createIdpKeyCache(jwksTtlSec);
  return async function verify(
    token: string,
    meta: ProviderMetadata,
    clientId: string,
    nonce: string,
  ): Promise<IdTokenClaims> {
    let payload: Record<string, unknown>;
    try {
      const r = await jwtVerify(
        token,
        async (header) => {
          if (typeof header.kid !== 'string') throw new IdTokenError('the ID token names no key (kid)');
          const k = await keys.key(
            { id: meta.issuer, issuer: meta.issuer, jwks_uri: meta.jwks_uri },
            header.kid,
          );
          if (!k) throw new IdTokenError('the ID token is signed with a key the provider does not publish');
          return k.key;
        },
        {
          issuer: meta.issuer,
          audience: clientId,
          algorithms: ALGORITHMS,
          clockTolerance: SKEW_SEC,
          maxTokenAge: MAX_AGE_SEC,
          requiredClaims: ['sub', 'iat', 'exp'],
        },
      );
      payload = r.payload as Record<string, unknown>;
    } catch (err) {
      if (err instanceof IdTokenError) throw err;
      if (err instanceof JwksFetchError) throw new IdTokenError('the provider’s keys could not be fetched');
      if (err instanceof errors.JWSSignatureVerificationFailed)
        throw new IdTokenError('the ID token signature is invalid');
      if (err instanceof errors.JOSEError)
        throw new IdTokenError(`the ID token is not acceptable (${err.code})`);
      throw err;
    }
    const aud = payload.aud;
    if (Array.isArray(aud) && aud.length > 1 && payload.azp !== clientId)
      throw new IdTokenError('the ID token was issued to another party (azp)');
    if (payload.nonce !== nonce) throw new IdTokenError('the ID token nonce does not match this sign-in');
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255)
      throw new IdTokenError('the ID token has no usable subject');
    return {
      iss: meta.issuer,
      sub: payload.sub,
      ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
      ...(typeof payload.email_verified === 'boolean' ? { email_verified: payload.email_verified } : {}),
      ...(typeof payload.name === 'string' ? { name: payload.name } : {}),
    };
  };
}

export type IdTokenVerifier = ReturnType<typeof createIdTokenVerifier>;
