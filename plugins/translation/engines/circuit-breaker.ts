export interface BreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before one trial call is let through. */
  cooldownMs: number;
  now?: () => number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * closed → (threshold consecutive failures) → open → (cooldown) → half-open: one trial call;
 * its success closes the circuit, its failure opens it again for another cooldown.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;
  private readonly now: () => number;

  constructor(private readonly opts: BreakerOptions) {
    this.now = opts.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt >= this.opts.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether a call may go to the upstream now; in half-open state only one trial at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  failure(): void {
    this.failures += 1;
    if (this.trialInFlight || this.failures >= this.opts.failureThreshold) this.openedAt = this.now();
    this.trialInFlight = false;
  }

  /** A call that ended without judging the upstream (e.g. our client went away) frees the trial slot. */
  release(): void {
    this.trialInFlight = false;
  }
}
