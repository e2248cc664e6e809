import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import type { KeyRing } from './keys.ts';
import { newId } from './secrets.ts';

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
}

export interface MintInput {
  sub: string;
  aud: string;
  clientId: string;
  scopes: string[];
  ttlSec: number;
}

/** RFC 9068 JWT access tokens (`typ: at+jwt`), signed with the key ring's current key. */
export function createTokenSigner(keys: KeyRing, issuer: () => string) {
  return {
    async mint(input: MintInput): Promise<{ token: string; claims: AccessTokenClaims }> {
      const key = keys.current();
      const iat = Math.floor(Date.now() / 1000);
      const claims: AccessTokenClaims = {
        iss: issuer(),
        sub: input.sub,
        aud: input.aud,
        exp: iat + input.ttlSec,
        iat,
        jti: newId(),
        client_id: input.clientId,
        scope: input.scopes.join(' '),
      };
      // RFC 9068 §2.1: header typ "at+jwt"
      const token = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
      return { token, claims };
    },

    /** Signature, `typ`, `iss`, `exp` and presence of every claim; returns null for anything else. */
    async verify(token: string): Promise<AccessTokenClaims | null> {
      try {
        const { kid } = decodeProtectedHeader(token);
        const key = kid ? keys.byKid(kid) : undefined;
        if (!key) return null;
        const { payload } = await jwtVerify(token, key.publicKey, {
          issuer: issuer(),
          typ: 'at+jwt', // RFC 9068 §4: reject tokens of another type
          algorithms: [key.alg],
          requiredClaims: ['sub', 'aud', 'exp', 'iat', 'jti', 'client_id'],
        });
        if (typeof payload.aud !== 'string' || typeof payload.client_id !== 'string') return null;
        return payload as unknown as AccessTokenClaims;
      } catch (err) {
        if (err instanceof errors.JOSEError || err instanceof TypeError) return null;
        throw err;
      }
    },
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
