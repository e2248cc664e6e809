/**
 * Per-key command coalescing: while a command for a key is being handed to the driver, later commands
 * for the same key replace each other and only the last one is sent (docs/lighting.md#desired-and-reported-state: "coalesce repeated
 * set to the same light, keep last"). Every caller learns when its command, or the one that superseded
 * it, has been handed over.
 */
interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

interface Slot<V> {
  pending: { value: V; waiters: Waiter[] } | null;
}

export class LatestWins<K, V> {
  readonly #slots = new Map<K, Slot<V>>();
  readonly #send: (key: K, value: V) => Promise<void>;
  /** How a queued value and the one replacing it combine (default: the newer one alone). */
  readonly #merge: (older: V, newer: V) => V;

  constructor(send: (key: K, value: V) => Promise<void>, merge?: (older: V, newer: V) => V) {
    this.#send = send;
    this.#merge = merge ?? ((_older, newer) => newer);
  }

  /** Sends now when the key is idle (synchronously, so an idle path adds no latency), else queues. */
  submit(key: K, value: V): Promise<void> {
    const slot = this.#slots.get(key);
    if (slot) {
      return new Promise<void>((resolve, reject) => {
        const waiters = slot.pending?.waiters ?? [];
        waiters.push({ resolve, reject });
        slot.pending = { value: slot.pending ? this.#merge(slot.pending.value, value) : value, waiters };
      });
    }
    const fresh: Slot<V> = { pending: null };
    this.#slots.set(key, fresh);
    return this.#run(key, fresh, value);
  }

  /** Number of keys with a command in flight (for metrics and tests). */
  get busy(): number {
    return this.#slots.size;
  }

  async #run(key: K, slot: Slot<V>, value: V): Promise<void> {
    try {
      await this.#send(key, value);
    } finally {
      this.#next(key, slot);
    }
  }

  #next(key: K, slot: Slot<V>): void {
    const pending = slot.pending;
    if (!pending) {
      this.#slots.delete(key);
      return;
    }
    slot.pending = null;
    this.#run(key, slot, pending.value).then(
      () => {
        for (const w of pending.waiters) w.resolve();
      },
      (err: unknown) => {
        for (const w of pending.waiters) w.reject(err);
      },
    );
  }
}
