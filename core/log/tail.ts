/**
 * The last log lines, kept in memory for the operator console's live tail (`GET /admin/log`). Lines are
 * the ones written out, already scrubbed of secrets; the ring is bounded, so a chatty hub costs at most
 * `size` lines (~300 B each) of memory. Each line gets a sequence number a reader passes back as `after`.
 */
export class LogTail {
  #lines: string[] = [];
  #first = 1;

  constructor(readonly size = 500) {}

  push(line: string): void {
    this.#lines.push(line.trimEnd());
    if (this.#lines.length > this.size) {
      this.#lines.shift();
      this.#first++;
    }
  }

  /** Sequence number the next line will get. */
  get next(): number {
    return this.#first + this.#lines.length;
  }

  /** Lines after sequence number `after` (at most `limit`, the newest ones), with their numbers. */
  since(after: number, limit = 200): Array<{ seq: number; line: string }> {
    const start = Math.max(0, after + 1 - this.#first, this.#lines.length - limit);
    return this.#lines.slice(start).map((line, i) => ({ seq: this.#first + start + i, line }));
  }
}
