import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { HearthError } from '../errors.ts';

/**
 * AES-256-GCM with a fresh 96-bit nonce per value and the caller's context bound as associated data, so
 * a sealed value copied to another record or name does not open there. Format:
 * `v1.<nonce>.<ciphertext>.<tag>` (base64url). See docs/secrets.md.
 */
const VERSION = 'v1';
const NONCE_BYTES = 12;

export class SecretUnavailableError extends HearthError {
  constructor(reason: string) {
    super('secret_unavailable', `secret unavailable: ${reason}`);
  }
}

/** One key per purpose, derived from the master key so the master key itself never touches data. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `hearth secrets ${purpose}`, 32));
}

export function seal(key: Buffer, value: string, context: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  const parts = [nonce, body, cipher.getAuthTag()].map((b) => b.toString('base64url'));
  return `${VERSION}.${parts.join('.')}`;
}

/** Throws SecretUnavailableError (never the value or the key) when the text is not ours to open. */
export function open(key: Buffer, sealed: string, context: string): string {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretUnavailableError('not a sealed value');
  const [nonce, body, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
  ];
  if (nonce.length !== NONCE_BYTES || tag.length !== 16) throw new SecretUnavailableError('malformed');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnavailableError('sealed with another key or for another context');
  }
}
