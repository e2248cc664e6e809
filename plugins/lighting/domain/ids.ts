import { hash, randomBytes } from 'node:crypto';

/** Opaque 24-hex-digit ids, the shape of the original service's `_id`s (docs/lighting.md#where-the-site-api-comes-from). */
export const newId = (): string => randomBytes(12).toString('hex');

/** A site key: 144 random bits, URL-safe (at least 128 bits, so it cannot be guessed). */
export const newSiteKey = (): string => randomBytes(18).toString('base64url');

/** One-shot sha256 (crypto.hash): the site API hashes the presented key on every request. */
export const hashKey = (key: string): string => hash('sha256', key, 'base64url');
