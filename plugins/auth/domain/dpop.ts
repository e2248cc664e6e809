import { constants, createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { decodeJws } from './jws.ts';

/**
 * DPoP proof checks (RFC 9449 §4.3) with node:crypto directly: a proof is verified on every token request
 * and every resource request that carries a bound token, and jose's embedded-key path cost several times the
 * signature itself. The replay cache and nonces live elsewhere; this file only says whether a proof is
 * well formed, signed by the key it carries, and made for this request.
 */

interface AlgSpec {
  kty: 'EC' | 'RSA' | 'OKP';
  crv?: string;
  hash: string | null;
  /** Raw R||S length for ECDSA (RFC 7518 §3.4). */
  sigLength?: number;
  pss?: boolean;
}

const ALGS: Record<string, AlgSpec> = Object.assign(Object.create(null) as Record<string, AlgSpec>, {
  ES256: { kty: 'EC', crv: 'P-256', hash: 'sha256', sigLength: 64 },
  ES384: { kty: 'EC', crv: 'P-384', hash: 'sha384', sigLength: 96 },
  // Ed25519 is the fully specified name (RFC 9864) that oauth4webapi sends; EdDSA the older one.
  Ed25519: { kty: 'OKP', crv: 'Ed25519', hash: null },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', hash: null },
  RS256: { kty: 'RSA', hash: 'sha256' },
  PS256: { kty: 'RSA', hash: 'sha256', pss: true },
});

/** RFC 9449 §5.1 `dpop_signing_alg_values_supported`: asymmetric algorithms only (§4.3 item 5). */
export const DPOP_ALGS = Object.keys(ALGS);

/** Seconds a proof is accepted after its `iat`, and how far in the future its `iat` may lie. */
export const PROOF_MAX_AGE_SEC = 60;
const FUTURE_SKEW_SEC = 10;
const MAX_JTI_LENGTH = 128;
const MIN_RSA_BITS = 2048;

export interface DpopProof {
  /** RFC 7638 thumbprint of the proof's key (`cnf.jkt`, RFC 9449 §6.1). */
  jkt: string;
  jti: string;
  iat: number;
  nonce?: string;
}

export class DpopProofError extends Error {}

/** RFC 7638 §3.2: the required members in lexicographic order, no whitespace, SHA-256, base64url. */
export function jwkThumbprint(jwk: Record<string, unknown>): string {
  const members =
    jwk.kty === 'EC'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
      : jwk.kty === 'RSA'
        ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
        : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** base64url(SHA-256(access token)), the proof's `ath` (RFC 9449 §4.2). */
export const accessTokenHash = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Imported public keys by thumbprint: a client presents the same key on every request. */
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_MAX = 1024;

function publicKeyOf(jwk: Record<string, unknown>, spec: AlgSpec, jkt: string): KeyObject {
  if (jwk.kty !== spec.kty || (spec.crv && jwk.crv !== spec.crv))
    throw new DpopProofError('the jwk does not fit the alg');
  // §4.3 item 7: the header must carry a public key only (checked before the cache: same thumbprint).
  if (PRIVATE_MEMBERS.some((m) => Object.hasOwn(jwk, m)))
    throw new DpopProofError('the jwk must not contain a private key');
  const cached = keyCache.get(jkt);
  if (cached) return cached;
  const parts =
    spec.kty === 'RSA'
      ? { kty: 'RSA', n: jwk.n, e: jwk.e }
      : spec.kty === 'EC'
        ? { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y }
        : { kty: 'OKP', crv: jwk.crv, x: jwk.x };
  let key: KeyObject;
  try {
    key = createPublicKey({ key: parts as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch {
    throw new DpopProofError('the jwk is not a valid public key');
  }
  if (spec.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    throw new DpopProofError('RSA keys must have at least 2048 bits');
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(jkt, key);
  return key;
}

function signatureOk(spec: AlgSpec, key: KeyObject, input: string, sig: Buffer): boolean {
  if (spec.sigLength !== undefined && sig.length !== spec.sigLength) return false;
  const data = Buffer.from(input);
  if (spec.kty === 'EC') return verify(spec.hash, data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  if (spec.pss)
    return verify(
      spec.hash,
      data,
      { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
      sig,
    );
  return verify(spec.hash, data, key, sig);
}

/** RFC 9449 §4.3 item 9: scheme and host compared case-insensitively, default ports dropped; no query. */
export function normalizeHtu(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

export interface ProofExpectation {
  method: string;
  /** The request's URL (or the acceptable forms of it); query and fragment are ignored. */
  urls: readonly string[];
  /** The access token presented with the proof (resource requests): `ath` must be its hash. */
  accessToken?: string;
  nowSec: number;
}

/** Checks one proof (everything but the replay cache and nonce); throws DpopProofError with the reason. */
export function checkDpopProof(proof: string, expect: ProofExpectation): DpopProof {
  const jws = decodeJws(proof);
  if (!jws) throw new DpopProofError('the DPoP proof is not a compact JWS');
  const { header, payload: p } = jws;
  if (header.typ !== 'dpop+jwt') throw new DpopProofError('typ must be dpop+jwt');
  const spec =
    typeof header.alg === 'string' && Object.hasOwn(ALGS, header.alg) ? ALGS[header.alg] : undefined;
  if (!spec) throw new DpopProofError(`alg must be one of ${DPOP_ALGS.join(', ')}`);
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk))
    throw new DpopProofError('the jwk header is missing');
  if (header.crit !== undefined) throw new DpopProofError('crit is not supported');
  const jkt = jwkThumbprint(jwk as Record<string, unknown>);
  const key = publicKeyOf(jwk as Record<string, unknown>, spec, jkt);
  if (!signatureOk(spec, key, jws.input, jws.sig)) throw new DpopProofError('the proof signature is invalid');

  if (!str(p.jti) || p.jti.length > MAX_JTI_LENGTH) throw new DpopProofError('jti is missing or too long');
  if (typeof p.iat !== 'number' || !Number.isFinite(p.iat)) throw new DpopProofError('iat is missing');
  if (p.iat < expect.nowSec - PROOF_MAX_AGE_SEC || p.iat > expect.nowSec + FUTURE_SKEW_SEC)
    throw new DpopProofError('the proof is outside its iat window');
  if (p.htm !== expect.method) throw new DpopProofError('htm does not match the request method');
  const htu = str(p.htu) ? normalizeHtu(p.htu) : null;
  if (!htu || !expect.urls.some((u) => normalizeHtu(u) === htu))
    throw new DpopProofError('htu does not match the request URL');
  if (expect.accessToken !== undefined) {
    if (p.ath !== accessTokenHash(expect.accessToken))
      throw new DpopProofError('ath does not match the access token');
  }
  if (p.nonce !== undefined && !str(p.nonce)) throw new DpopProofError('nonce must be a string');
  return { jkt, jti: p.jti, iat: p.iat, ...(p.nonce !== undefined ? { nonce: p.nonce as string } : {}) };
}

const CURVES: Record<string, string> = { 'P-256': 'prime256v1', 'P-384': 'secp384r1' };

/**
 * A JWS signature check with a key from elsewhere (an identity provider's JWKS): the algorithm must be one
 * we accept and fit the key's type and curve (RFC 8725 §3.1), so a key cannot be used with another alg.
 */
export function verifyWithKey(alg: unknown, key: KeyObject, input: string, sig: Buffer): boolean {
  const spec = typeof alg === 'string' && Object.hasOwn(ALGS, alg) ? ALGS[alg] : undefined;
  if (!spec) return false;
  const type = key.asymmetricKeyType;
  if (spec.kty === 'RSA') {
    if (type !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return false;
  } else if (spec.kty === 'EC') {
    if (type !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== CURVES[spec.crv ?? '']) return false;
  } else if (type !== 'ed25519') return false;
  try {
    return signatureOk(spec, key, input, sig);
  } catch {
    return false;
  }
}
