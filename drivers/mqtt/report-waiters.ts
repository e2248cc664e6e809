/** Waiting for a device's next state report, bounded: reads and the first resync wait on it. */
export class ReportWaiters {
  readonly #waiting = new Map<string, Array<() => void>>();

  /** Resolves when `protocolid` reports a level, or after `ms`. */
  next(protocolid: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      t.unref();
      const wake = () => {
        clearTimeout(t);
        resolve();
      };
      this.#waiting.set(protocolid, [...(this.#waiting.get(protocolid) ?? []), wake]);
    });
  }

  reported(protocolid: string): void {
    const list = this.#waiting.get(protocolid);
    if (!list) return;
    this.#waiting.delete(protocolid);
    for (const wake of list) wake();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
  });
}
