export interface LockoutOptions {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  /** Bound on tracked keys so a flood of identities cannot grow memory without limit. */
  maxTracked: number;
}

interface Entry {
  failures: number;
  windowStart: number;
  lockedUntil: number;
}

/**
 * Failed-login tracking per (identity, client IP) (docs/auth.md#brute-force-csrf-and-cookies): checked before the password
 * hash, only rejected credentials count, the lockout deadline is fixed once set.
 */
export function createLockout(opts: LockoutOptions, now: () => number = Date.now) {
  const entries = new Map<string, Entry>();
  const keyOf = (identity: string, ip: string) => `${identity.toLowerCase()}\u0000${ip}`;

  const evict = () => {
    const t = now();
    for (const [k, e] of entries) {
      if (entries.size < opts.maxTracked) return;
      if (e.lockedUntil <= t) entries.delete(k);
    }
  };

  return {
    /** Remaining lockout in ms (0 when not locked). */
    remainingMs(identity: string, ip: string): number {
      const e = entries.get(keyOf(identity, ip));
      return e ? Math.max(0, e.lockedUntil - now()) : 0;
    },
    /** Records a rejected credential; returns true when this failure started a lockout. */
    fail(identity: string, ip: string): boolean {
      const key = keyOf(identity, ip);
      const t = now();
      let e = entries.get(key);
      if (!e || t - e.windowStart > opts.windowMs) {
        if (!e && entries.size >= opts.maxTracked) evict();
        e = { failures: 0, windowStart: t, lockedUntil: 0 };
        entries.set(key, e);
      }
      if (e.lockedUntil > t) return false;
      e.failures++;
      if (e.failures >= opts.maxFailures) {
        e.lockedUntil = t + opts.lockoutMs;
        e.failures = 0;
        e.windowStart = t;
        return true;
      }
      return false;
    },
    succeed(identity: string, ip: string): void {
      entries.delete(keyOf(identity, ip));
    },
    size: () => entries.size,
  };
}

export type Lockout = ReturnType<typeof createLockout>;
