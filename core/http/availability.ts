import { HttpError } from './errors.ts';

/** Where the hub is in its life, as requests see it. */
export type HubPhase = 'starting' | 'ready' | 'restoring' | 'stopping';

/** Seconds a client is asked to wait before retrying while the hub is not ready. */
export const RETRY_AFTER_S = 2;

/** Paths answered in every phase: the probes and the admin status. */
export const alwaysServed: ReadonlySet<string> = new Set(['/livez', '/health', '/ready', '/admin/hub']);

const why: Record<Exclude<HubPhase, 'ready'>, string> = {
  starting: 'Hearth is starting',
  restoring: 'Hearth is restoring a backup',
  stopping: 'Hearth is stopping',
};

/** The 503 a request gets while the hub cannot serve it yet (or any more). */
export function unavailable(phase: Exclude<HubPhase, 'ready'>): HttpError {
  return new HttpError(503, 'unavailable', `${why[phase]}; retry in a moment`, {
    headers: { 'Retry-After': String(RETRY_AFTER_S) },
  });
}

/**
 * The hub's phase and the requests in flight on every listener. Until `ready`, a path no router serves
 * yet answers 503 rather than 404; while restoring or stopping, every request but the probes is refused
 * with 503 so no write is accepted that the restore (or the shutdown) would drop.
 */
export class Availability {
  phase: HubPhase = 'starting';
  private inflight = 0;
  private idle: Array<() => void> = [];

  enter(): void {
    this.inflight++;
  }

  leave(): void {
    this.inflight--;
    if (this.inflight <= this.waitingFor) for (const wake of this.idle.splice(0)) wake();
  }

  private waitingFor = 0;

  /**
   * Resolves once at most `own` requests (the caller's own) are in flight, or after `timeoutMs`.
   * Returns whether the listeners drained.
   */
  async drain(own: number, timeoutMs: number): Promise<boolean> {
    if (this.inflight <= own) return true;
    this.waitingFor = own;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => this.idle.push(() => resolve(true))),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    this.idle = [];
    return drained;
  }
}

const RELAY = Symbol('hearth.relay');

/** One request counted as in flight until it ends (or declares itself a relay): counted once, left once. */
export class CountedRequest {
  #done = false;
  readonly #availability: Availability;

  constructor(availability: Availability, state: object) {
    this.#availability = availability;
    availability.enter();
    (state as Record<symbol, unknown>)[RELAY] = this;
  }

  leave(): void {
    if (this.#done) return;
    this.#done = true;
    this.#availability.leave();
  }
}

/**
 * Declares the request a pure relay: it only forwards to another request on a listener (the console's
 * proxy to the admin API), which is counted itself. It then no longer counts as in flight, so a restore
 * it forwards does not wait its own relay out for the whole shutdown grace.
 */
export function relayOnly(state: object): void {
  const counted = (state as Record<symbol, unknown>)[RELAY];
  if (counted instanceof CountedRequest) counted.leave();
}
