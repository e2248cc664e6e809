import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Opaque 24-hex-digit ids, the shape of the original service's `_id`s (research §1.1). */
export const newId = (): string => randomBytes(12).toString('hex');

/** A site key: 144 random bits, URL-safe (issue 3: ≥128 bits). */
export const newSiteKey = (): string => randomBytes(18).toString('base64url');

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('base64url');

/** Constant-time equality of two key hashes (both fixed-length sha256 digests). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
