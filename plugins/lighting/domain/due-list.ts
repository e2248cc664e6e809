/**
 * Per-key deadlines of one fixed delay, on one timer. Setting a key (again) starts its delay over; a key
 * that is deleted before its deadline never fires. Used for reconciliation, which is armed by every light
 * command and disarmed by nearly every device report: a Map write each instead of a timer armed and cleared
 * in the command path.
 *
 * All deadlines are the same delay after their set, so the Map's insertion order (a reset key is deleted
 * and set again, moving it to the end) is deadline order and the timer only ever waits for the first.
 */
export class DueList<K, V> {
  readonly #delayMs: number;
  readonly #fire: (key: K, value: V) => void;
  readonly #due = new Map<K, { at: number; value: V }>();
  #timer: NodeJS.Timeout | null = null;
  #sweeping = false;

  constructor(delayMs: number, fire: (key: K, value: V) => void) {
    this.#delayMs = delayMs;
    this.#fire = fire;
  }

  /** `key` fires `delayMs` from now (with `value`), unless set again or deleted before. */
  set(key: K, value: V): void {
    this.#due.delete(key);
    this.#due.set(key, { at: performance.now() + this.#delayMs, value });
    if (!this.#timer && !this.#sweeping) this.#arm(this.#delayMs);
  }

  delete(key: K): void {
    // The timer stays: when it fires early for nothing it waits for the next deadline, or stops.
    this.#due.delete(key);
  }

  has(key: K): boolean {
    return this.#due.has(key);
  }

  get size(): number {
    return this.#due.size;
  }

  clear(): void {
    this.#due.clear();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(delay: number): void {
    // Unref'd: pending deadlines must not hold a stopping process open.
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(delay)));
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = null;
    const now = performance.now();
    this.#sweeping = true;
    try {
      for (const [key, d] of this.#due) {
        if (d.at > now) break;
        this.#due.delete(key);
        this.#fire(key, d.value);
      }
    } finally {
      this.#sweeping = false;
      const first = this.#due.values().next().value;
      if (first && !this.#timer) this.#arm(first.at - now);
    }
  }
}
