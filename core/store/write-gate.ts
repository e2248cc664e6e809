/** A promise with its resolver exposed (Promise.withResolvers needs Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Holds every store's disk writes back while a consistent set of files is read (backup). Writers `enter`
 * before touching the disk and `exit` after; `hold` resolves once no write is on the disk any more.
 */
export class WriteGate {
  #held = 0;
  #active = 0;
  #opened = deferred();
  #drained: Array<() => void> = [];

  get held(): boolean {
    return this.#held > 0;
  }

  async enter(): Promise<void> {
    while (this.#held > 0) await this.#opened.promise;
    this.#active += 1;
  }

  exit(): void {
    this.#active -= 1;
    if (this.#active === 0) for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Stops new writes from starting and resolves when the ones already on the disk are done. */
  async hold(): Promise<void> {
    if (this.#held === 0) this.#opened = deferred();
    this.#held += 1;
    if (this.#active > 0) await new Promise<void>((resolve) => this.#drained.push(resolve));
  }

  release(): void {
    this.#held -= 1;
    if (this.#held === 0) this.#opened.resolve();
  }
}
