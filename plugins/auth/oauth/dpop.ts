import type { IncomingHttpHeaders } from 'node:http';
import type { AuthConfig } from '../config.ts';
import { checkDpopProof, type DpopProof, DpopProofError, PROOF_MAX_AGE_SEC } from '../domain/dpop.ts';
import { createNonceSource, type NonceSource } from '../domain/dpop-nonce.ts';
import { createReplayCache, type ReplayCache } from '../domain/replay-cache.ts';
import { oauthError } from './errors.ts';

/** DPoP state shared by the token endpoint and the resource-side verifier (one replay cache for both). */
export interface DpopService {
  enabled: boolean;
  requireNonce: boolean;
  nonceTtl: number;
  nonces: NonceSource;
  replay: ReplayCache;
}

export function createDpopService(config: AuthConfig['dpop'], secret: Buffer): DpopService {
  return {
    enabled: config.enabled,
    requireNonce: config.require_nonce,
    nonceTtl: config.nonce_ttl,
    nonces: createNonceSource(secret, config.nonce_ttl),
    replay: createReplayCache(config.replay_cache_max),
  };
}

const invalidProof = (d: string) => oauthError(400, 'invalid_dpop_proof', d); // RFC 9449 §5

/** Remembers the proof's jti for its window (RFC 9449 §11.1); a second use is refused. */
function checkReplay(dpop: DpopService, proof: DpopProof): string | null {
  const seen = dpop.replay.add(proof.jti, (proof.iat + PROOF_MAX_AGE_SEC) * 1000);
  if (seen === 'replay') return 'the DPoP proof was already used';
  if (seen === 'full') return 'too many DPoP proofs in the replay window; retry shortly';
  return null;
}

/**
 * The DPoP proof of a token request (RFC 9449 §5), or null when there is none (or DPoP is off: the proof is
 * then ignored and a Bearer token issued). A proof that fails any check is `invalid_dpop_proof`; a missing or
 * stale nonce, when nonces are required or one was sent, is `use_dpop_nonce` with a fresh `DPoP-Nonce`.
 */
export function tokenRequestProof(
  dpop: DpopService,
  request: { headers: IncomingHttpHeaders },
  tokenEndpoint: string,
): DpopProof | null {
  if (!dpop.enabled) return null;
  const header = request.headers.dpop;
  if (header === undefined) return null;
  // §4.3 item 1: exactly one DPoP header (Node joins repeated ones with a comma; a JWS has none).
  if (typeof header !== 'string' || header.includes(',') || header === '')
    throw invalidProof('exactly one DPoP header is allowed');
  let proof: DpopProof;
  try {
    proof = checkDpopProof(header, {
      method: 'POST',
      // §4.3 item 9, §11.1: this server's own URL of the endpoint (what discovery advertises), never one
      // built from the Host header: a proof captured at another server must not replay here.
      urls: [tokenEndpoint],
      nowSec: Math.floor(Date.now() / 1000),
    });
  } catch (err) {
    if (err instanceof DpopProofError) throw invalidProof(err.message);
    throw err;
  }
  // §8: the server nonce.
  if (dpop.requireNonce || proof.nonce !== undefined) {
    if (proof.nonce === undefined || !dpop.nonces.valid(proof.nonce)) {
      throw oauthError(400, 'use_dpop_nonce', 'a fresh DPoP nonce is required (see the DPoP-Nonce header)', {
        headers: { 'DPoP-Nonce': dpop.nonces.current() },
      });
    }
  }
  const replay = checkReplay(dpop, proof);
  if (replay) throw invalidProof(replay);
  return proof;
}

/** How a resource request presented its token (RFC 9449 §7.1: `Authorization: DPoP` plus a proof). */
export interface TokenPresentation {
  scheme: 'bearer' | 'dpop';
  /** The `DPoP` header, when present. */
  proof?: string;
  method: string;
  /** The request's URL as the client may have named it (several forms when it is ambiguous). */
  urls: readonly string[];
}

/**
 * Whether a resource request proves possession of the key a token is bound to (RFC 9449 §7.1): the DPoP
 * scheme, one valid proof for this method and URL with `ath` of this token, the token's key, an unseen jti.
 * Resources do not demand nonces (§9 leaves that to them): the jti cache and the 60 s window bound replay.
 */
export function resourceProofHolds(
  dpop: DpopService,
  token: string,
  jkt: string,
  how: TokenPresentation | undefined,
): boolean {
  if (!dpop.enabled || how?.scheme !== 'dpop' || !how.proof || how.proof.includes(',')) return false;
  try {
    const proof = checkDpopProof(how.proof, {
      method: how.method.toUpperCase(),
      urls: how.urls,
      accessToken: token,
      nowSec: Math.floor(Date.now() / 1000),
    });
    return proof.jkt === jkt && checkReplay(dpop, proof) === null;
  } catch (err) {
    if (err instanceof DpopProofError) return false;
    throw err;
  }
}
