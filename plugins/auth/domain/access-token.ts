import { createHash } from 'node:crypto';
import { decodeJws, encodeJwsHeader, type SigningAlg, verifyEs256 } from './jws.ts';
import type { KeyRing } from './keys.ts';
import { newId } from './secrets.ts';
import { SignBatch } from './sign-batch.ts';

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to. */
  cnf?: { jkt: string };
  /** RFC 8693 §4.1: the acting party, most recent outermost. */
  act?: Actor;
}

export interface Actor {
  sub: string;
  act?: Actor;
}

/** The actors of an `act` claim, root first (the order of `agent_chain`). */
export function actorChain(act: Actor | undefined): string[] {
  const out: string[] = [];
  for (let a = act; a; a = a.act) out.unshift(a.sub);
  return out;
}

/** An `act` claim from actors listed root first. */
export function actFromChain(chain: readonly string[]): Actor | undefined {
  let act: Actor | undefined;
  for (const sub of chain) act = act ? { sub, act } : { sub };
  return act;
}

const MAX_ACT_DEPTH = 16;
/** A well-formed `act` claim, or null. */
function readAct(v: unknown, depth = 0): Actor | null {
  if (depth > MAX_ACT_DEPTH || !v || typeof v !== 'object') return null;
  const { sub, act } = v as { sub?: unknown; act?: unknown };
  if (typeof sub !== 'string' || sub === '') return null;
  if (act === undefined) return { sub };
  const inner = readAct(act, depth + 1);
  return inner ? { sub, act: inner } : null;
}

export interface MintInput {
  sub: string;
  aud: string;
  clientId: string;
  scopes: string[];
  ttlSec: number;
  /** DPoP key thumbprint to bind the token to. */
  jkt?: string;
  act?: Actor | undefined;
}

export interface IdTokenInput {
  sub: string;
  clientId: string;
  ttlSec: number;
  /** Epoch seconds of the sign-in. */
  authTime: number;
  nonce?: string | undefined;
  accessToken: string;
  /** The client's `id_token_signed_response_alg`. */
  alg: SigningAlg;
}

const CLOCK_SKEW_SEC = 30;
const str = (v: unknown): v is string => typeof v === 'string';
/** `cnf.jkt` when the token carries one. */
const cnfOf = (v: unknown): string | undefined => {
  const jkt = v && typeof v === 'object' ? (v as { jkt?: unknown }).jkt : undefined;
  return str(jkt) ? jkt : undefined;
};
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** RFC 9068 JWT access tokens (`typ: at+jwt`), signed with the key ring's current key. */
export function createTokenSigner(keys: KeyRing, issuer: () => string) {
  const batch = new SignBatch();
  // RFC 9068 §2.1: header typ "at+jwt". Encoded once per signing key, not once per token.
  let atHeader = { kid: '', encoded: '' };
  const accessTokenHeader = (kid: string): string => {
    if (atHeader.kid !== kid) atHeader = { kid, encoded: encodeJwsHeader({ typ: 'at+jwt', kid }, 'ES256') };
    return atHeader.encoded;
  };
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
      // Assigned rather than spread: the same claims in the same order, without a temporary object per token.
      if (input.jkt) claims.cnf = { jkt: input.jkt };
      if (input.act) claims.act = input.act;
      const token = await batch.sign(accessTokenHeader(key.kid), claims, key.privateKey);
      return { token, claims };
    },

    /** An OpenID Connect ID token (OpenID Connect Core §2) with the client's algorithm's current key. */
    async idToken(claims: IdTokenInput): Promise<string> {
      const key = keys.currentFor(claims.alg);
      const iat = Math.floor(Date.now() / 1000);
      const payload = {
        iss: issuer(),
        sub: claims.sub,
        aud: claims.clientId,
        exp: iat + claims.ttlSec,
        iat,
        auth_time: claims.authTime,
        ...(claims.nonce !== undefined ? { nonce: claims.nonce } : {}),
        // §3.1.3.6: the left half of the SHA-256 of the access token, base64url
        at_hash: createHash('sha256')
          .update(claims.accessToken)
          .digest()
          .subarray(0, 16)
          .toString('base64url'),
      };
      return batch.sign({ typ: 'JWT', kid: key.kid }, payload, key.privateKey, key.alg);
    },

    /** Signature, `alg`, `typ`, `iss`, `exp` and presence of every claim; returns null for anything else. */
    async verify(token: string): Promise<AccessTokenClaims | null> {
      const jws = decodeJws(token);
      if (!jws) return null;
      const { header, payload: p } = jws;
      // RFC 9068 §4: reject other token types; RFC 8725 §3.1: only the algorithm of the key
      if (header.typ !== 'at+jwt' || !str(header.kid)) return null;
      const key = keys.byKid(header.kid);
      // Access tokens are ES256 only; the RS256 keys sign ID tokens and nothing else.
      if (key?.alg !== 'ES256' || header.alg !== key.alg || header.crit !== undefined) return null;
      if (!verifyEs256(jws.input, jws.sig, key.publicKey)) return null;
      if (
        !str(p.iss) ||
        !str(p.sub) ||
        !str(p.aud) ||
        !str(p.jti) ||
        !str(p.client_id) ||
        !num(p.exp) ||
        !num(p.iat)
      )
        return null;
      const now = Math.floor(Date.now() / 1000);
      if (p.iss !== issuer() || p.exp <= now || p.iat > now + CLOCK_SKEW_SEC) return null;
      // A cnf that is present but unreadable must not turn a bound token into a bearer one.
      const jkt = cnfOf(p.cnf);
      if (p.cnf !== undefined && !jkt) return null;
      const act = p.act === undefined ? undefined : readAct(p.act);
      if (act === null) return null;
      return {
        iss: p.iss,
        sub: p.sub,
        aud: p.aud,
        exp: p.exp,
        iat: p.iat,
        jti: p.jti,
        client_id: p.client_id,
        scope: str(p.scope) ? p.scope : '',
        ...(jkt ? { cnf: { jkt } } : {}),
        ...(act ? { act } : {}),
      };
    },
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
