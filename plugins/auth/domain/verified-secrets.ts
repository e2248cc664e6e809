import { hash, timingSafeEqual } from 'node:crypto';
import { verifySecret } from './secrets.ts';

interface Verified {
  /** The stored hash the secret was verified against: a rotated secret has another one. */
  stored: string;
  /** SHA-256 of the secret that passed; never the secret itself. */
  digest: Buffer;
}

/**
 * Client secrets this process has verified, one per client: the SHA-256 of the last secret that passed the
 * keyed-hash check, and the stored hash it passed against. A client presenting the same secret again is
 * checked with one SHA-256 and a constant-time comparison instead of a new HMAC (a few microseconds of the
 * token endpoint's budget). Nothing is trusted beyond what the store says now: the entry counts only while
 * the client's stored hash is the one it was verified against, so a rotated secret fails at once, and the
 * caller looks the client up (and checks it is active) before asking. Secrets are 256-bit random values, so
 * their digest reveals no more than the stored HMAC does (docs/auth.md#tokens-and-secrets-at-rest).
 */
export class VerifiedSecrets {
  readonly #byClient = new Map<string, Verified>();
  readonly #pepper: Buffer;
  readonly #max: number;

  constructor(pepper: Buffer, max = 10_000) {
    this.#pepper = pepper;
    this.#max = max;
  }

  /** Whether `presented` is the secret whose keyed hash is `stored` (the client's current one). */
  verify(clientId: string, presented: string, stored: string): boolean {
    const digest = hash('sha256', presented, 'buffer');
    const known = this.#byClient.get(clientId);
    if (known !== undefined && known.stored === stored && timingSafeEqual(known.digest, digest)) return true;
    if (!verifySecret(this.#pepper, presented, stored)) return false;
    // Bounded by the number of clients in practice; a full map starts over rather than grow.
    if (this.#byClient.size >= this.#max && known === undefined) this.#byClient.clear();
    this.#byClient.set(clientId, { stored, digest });
    return true;
  }

  /** Drops what is remembered of a client (removed, suspended, or its secret replaced). */
  forget(clientId: string): void {
    this.#byClient.delete(clientId);
  }

  get size(): number {
    return this.#byClient.size;
  }
}
