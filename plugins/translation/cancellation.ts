/**
 * The part of `AbortSignal` the plugin's request plumbing uses. `AbortSignal` satisfies it; so does the
 * cheaper `Cancellation` below.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A one-shot cancellation notice shaped like an `AbortSignal` (listeners run once, none are added after
 * it fired). Node 20 takes microseconds to create an `AbortSignal` (10–20 µs each on the 2-vCPU VM under
 * load, see the README), and every translation needs several (the client, the shared call, each attempt);
 * this is a plain object.
 */
export class Cancellation implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  #listeners: Array<() => void> | null = null;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    if (this.#listeners) this.#listeners.push(listener);
    else this.#listeners = [listener];
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.#listeners?.splice(index, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = null;
    for (const listener of listeners ?? []) listener();
  }
}
