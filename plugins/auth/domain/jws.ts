import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import type { JWK } from 'jose';

/**
 * ES256 (and RS256, for ID tokens) compact JWS with node:crypto directly. jose signs through WebCrypto, whose per-call job overhead
 * dominated token issuance in the benchmark; the format is plain RFC 7515 and jose/openid-client verify it
 * in the tests.
 */
const b64 = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');

export const privateKeyFromJwk = (jwk: JWK): KeyObject =>
  createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
export const publicKeyFromJwk = (jwk: JWK): KeyObject =>
  createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });

export type SigningAlg = 'ES256' | 'RS256';

/** A protected header with its `alg`, encoded: for a caller that signs many tokens under one header. */
export const encodeJwsHeader = (header: Record<string, unknown>, alg: SigningAlg = 'ES256'): string =>
  b64({ ...header, alg });

/** `header` is the header object, or one `encodeJwsHeader` made for the same `alg`. */
export function signJws(
  header: Record<string, unknown> | string,
  payload: object,
  key: KeyObject,
  alg: SigningAlg = 'ES256',
): string {
  const input = `${typeof header === 'string' ? header : encodeJwsHeader(header, alg)}.${b64(payload)}`;
  const sig =
    alg === 'ES256'
      ? // RFC 7518 §3.4: the signature is R || S (IEEE P1363), not DER
        sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
      : // RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256 (node's default padding for an RSA key)
        sign('sha256', Buffer.from(input), key);
  return `${input}.${sig.toString('base64url')}`;
}

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** Splits and parses a compact JWS without checking it (null when malformed). */
export function decodeJws(token: string): (DecodedJws & { input: string; sig: Buffer }) | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as unknown;
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    if (
      !header ||
      typeof header !== 'object' ||
      !payload ||
      typeof payload !== 'object' ||
      Array.isArray(payload)
    )
      return null;
    return {
      header: header as Record<string, unknown>,
      payload: payload as Record<string, unknown>,
      input: `${parts[0]}.${parts[1]}`,
      sig: Buffer.from(parts[2]!, 'base64url'),
    };
  } catch {
    return null;
  }
}

export function verifyEs256(input: string, sig: Buffer, key: KeyObject): boolean {
  if (sig.length !== 64) return false;
  return verify('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }, sig);
}
