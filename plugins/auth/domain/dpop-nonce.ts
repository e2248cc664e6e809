import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Server-provided DPoP nonces (RFC 9449 §8) without server state: a nonce is its expiry and a MAC of it,
 * so checking one needs no store and a restart with the same secret keeps outstanding nonces valid. A new
 * nonce is minted when the current one has less than half its lifetime left, so a client that follows the
 * `DPoP-Nonce` header always holds one with time to spare.
 */
export function createNonceSource(secret: Buffer, ttlSec: number, now: () => number = () => Date.now()) {
  const key = createHmac('sha256', secret).update('hearth dpop nonce').digest();
  const mac = (exp: Buffer) => createHmac('sha256', key).update(exp).digest().subarray(0, 16);
  let current = { value: '', exp: 0 };
  return {
    current(): string {
      const t = now();
      if (current.exp - t < (ttlSec * 1000) / 2) {
        const exp = Buffer.alloc(6);
        exp.writeUIntBE(t + ttlSec * 1000, 0, 6);
        current = { value: Buffer.concat([exp, mac(exp)]).toString('base64url'), exp: t + ttlSec * 1000 };
      }
      return current.value;
    },
    /** Whether a nonce came from here and has not expired. */
    valid(nonce: string): boolean {
      if (nonce.length !== 30) return false;
      const raw = Buffer.from(nonce, 'base64url');
      if (raw.length !== 22) return false;
      const exp = raw.subarray(0, 6);
      if (!timingSafeEqual(raw.subarray(6), mac(exp))) return false;
      return exp.readUIntBE(0, 6) > now();
    },
  };
}

export type NonceSource = ReturnType<typeof createNonceSource>;
