import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A 256-bit random opaque value (codes, refresh tokens, client secrets), base64url. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

export const newId = (): string => randomUUID();

/** Opaque tokens (codes, refresh tokens) are stored only as their SHA-256 (docs/auth.md#tokens-and-secrets-at-rest). */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/**
 * Client secrets are 256-bit random values, so a keyed fast hash is enough; a password KDF here would
 * cap token issuance at a few dozen per second (docs/auth.md#tokens-and-secrets-at-rest).
 */
export const hashSecret = (pepper: Buffer, secret: string): string =>
  createHmac('sha256', pepper).update(secret).digest('base64url');

export function verifySecret(pepper: Buffer, presented: string, stored: string): boolean {
  const a = Buffer.from(hashSecret(pepper, presented));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

/** Constant-time equality of two strings (CSRF tokens, cookie MACs). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
