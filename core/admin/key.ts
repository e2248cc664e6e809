import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256-bit random keys, URL-safe. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

/** A random 256-bit key needs no slow KDF: SHA-256 is enough to keep the stored hash useless. */
export const hashSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

export function secretMatches(presented: string | undefined, hashHex: string | undefined): boolean {
  if (!presented || !hashHex) return false;
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(hashHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
