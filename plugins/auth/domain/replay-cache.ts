/**
 * Values seen within their acceptance window (DPoP proof `jti`s, RFC 9449 §11.1), bounded in memory. An
 * entry lives until its proof would be refused as stale anyway. When the cache is full of live entries a
 * new value is refused rather than an old one forgotten: forgetting would let that proof be replayed.
 */
export function createReplayCache(
  max: number,
  now: () => number = () => Date.now(),
  /** The longest window an entry may ask for: a value with a longer one is refused, never stored. */
  maxTtlMs = Number.POSITIVE_INFINITY,
) {
  const seen = new Map<string, number>();
  let lastSweep = 0;
  const sweep = (t: number) => {
    lastSweep = t;
    for (const [k, exp] of seen) if (exp <= t) seen.delete(k);
  };
  return {
    /**
     * Remembers `value` until `expiresAt` (epoch ms). Returns 'fresh', 'replay' when it was seen and is still
     * in its window, 'full' when no room is left, or 'too_long' when its window exceeds `maxTtlMs` (every
     * entry then leaves within that time: a cache full of far-future entries cannot lock everyone out).
     */
    add(value: string, expiresAt: number): 'fresh' | 'replay' | 'full' | 'too_long' {
      const t = now();
      if (expiresAt - t > maxTtlMs) return 'too_long';
      const prev = seen.get(value);
      if (prev !== undefined && prev > t) return 'replay';
      // Insertion order roughly follows time: drop expired entries from the head, cheaply.
      for (const [k, exp] of seen) {
        if (exp > t) break;
        seen.delete(k);
      }
      if (seen.size >= max && t - lastSweep >= 1000) sweep(t);
      if (seen.size >= max) return 'full';
      seen.set(value, expiresAt);
      return 'fresh';
    },
    size: () => seen.size,
  };
}

export type ReplayCache = ReturnType<typeof createReplayCache>;
