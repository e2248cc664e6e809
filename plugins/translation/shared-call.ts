import { HttpError } from '../../core/sdk.ts';
import { type AbortLike, Cancellation } from './cancellation.ts';

/**
 * Upstream work withdrawn before it finished: every request waiting for it has gone, or the hub is
 * stopping. A 503 with Retry-After, for the rare caller that is still there to read it.
 */
export class Withdrawn extends HttpError {
  constructor(message: string) {
    super(503, 'unavailable', message, { headers: { 'Retry-After': '1' } });
  }
}

/**
 * One piece of upstream work shared by every request that waits for it (a text another request is already
 * translating with the same options). Each waiter joins with its own signal; when the last one leaves
 * before the work is done (its client closed the connection), the work is cancelled, so the upstream
 * call is cancelled instead of running on for nobody, and `onAbandon` lets the owner forget it at once
 * (a retry must start fresh work, not join the abandoned one).
 */
export class SharedCall<T> {
  readonly #work = new Cancellation();
  readonly #result: Promise<T>;
  #waiters = 0;
  #settled = false;

  constructor(
    run: (signal: AbortLike) => Promise<T>,
    private readonly onAbandon: () => void,
    /** The hub stopping withdraws the work too. */
    parent?: AbortLike,
    /** Told once the work is done, however it ended, before any waiter hears of it. */
    onSettled?: () => void,
  ) {
    const stop = () => this.#work.abort(new Withdrawn('The hub is stopping.'));
    if (parent?.aborted) stop();
    else parent?.addEventListener('abort', stop, { once: true });
    this.#result = run(this.#work);
    const settle = () => {
      this.#settled = true;
      parent?.removeEventListener('abort', stop);
      onSettled?.();
    };
    this.#result.then(settle, settle);
  }

  /** Whether the work was cancelled because nobody waited for it any more. */
  get abandoned(): boolean {
    return this.#work.aborted;
  }

  /** Waits for the result on behalf of one caller; the caller's signal aborting withdraws that caller. */
  join(caller: AbortLike): Promise<T> {
    if (caller.aborted) return Promise.reject(caller.reason);
    this.#waiters += 1;
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        this.#waiters -= 1;
        reject(caller.reason);
        if (this.#waiters === 0 && !this.#settled && !this.abandoned) {
          this.onAbandon();
          this.#work.abort(new Withdrawn('Every request waiting for this translation has gone.'));
        }
      };
      caller.addEventListener('abort', leave, { once: true });
      this.#result.then(
        (value) => {
          caller.removeEventListener('abort', leave);
          resolve(value);
        },
        (err: unknown) => {
          caller.removeEventListener('abort', leave);
          reject(err);
        },
      );
    });
  }
}
