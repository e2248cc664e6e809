/**
 * A token bucket per key (client IP), bounded in size: `ratePerSec` sustained, `burst` at once.
 * Used on dynamic registration (docs/auth.md#behaviour-where-the-spec-is-silent: 10 rps, burst 20) and on the
 * console's claim and password sign-in (plugins/console/README.md), which anyone on the LAN can reach, and
 * charged by failed client authentications at the OAuth token, introspection and revocation endpoints.
 */
export function createRateLimiter(
  opts: { ratePerSec: number; burst: number; maxKeys: number },
  now: () => number = Date.now,
) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Seconds until a token is available for `key` (0: one is), taking none. */
    wait(key: string): number {
      const b = buckets.get(key);
      if (!b) return 0;
      const tokens = Math.min(opts.burst, b.tokens + ((now() - b.at) / 1000) * opts.ratePerSec);
      return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / opts.ratePerSec));
    },
    /** Takes one token; returns 0 when allowed, else the seconds until the next token. */
    take(key: string): number {
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= opts.maxKeys) buckets.delete(buckets.keys().next().value as string);
        b = { tokens: opts.burst, at: t };
        buckets.set(key, b);
      }
      b.tokens = Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.ratePerSec);
      b.at = t;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / opts.ratePerSec));
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
