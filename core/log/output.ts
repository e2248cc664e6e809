import type { Writable } from 'node:stream';

export interface LogOutputOptions {
  /** Where lines go: stdout (a pipe to journald, a file, a terminal) or a test's stream. */
  sink: Writable;
  /** Bytes the sink may hold unwritten before new lines are dropped. */
  maxPendingBytes?: number;
  /** The longest `flush()` waits for a slow reader. */
  flushTimeoutMs?: number;
  /** Turns a JSON line into what the sink shows (a terminal gets readable text). */
  format?: (line: string) => string;
  /** Also keeps each written line (JSON) for the console's live tail. */
  tail?: { push(line: string): void };
}

/**
 * Best-effort, bounded log output. Writes never block the event loop: a pipe is written asynchronously,
 * and when the reader stops reading, at most `maxPendingBytes` wait in memory; later lines are dropped
 * and counted, and the count is logged once the reader catches up. `flush()` gives up after a timeout,
 * so stopping never waits on a reader that is gone. Why: docs/logging.md.
 */
export class LogOutput {
  /** Lines dropped since start. */
  dropped = 0;
  /** Logs "n lines were dropped" once output flows again; set by the logger that owns this output. */
  reportDrops: (count: number) => void = () => {};
  private unreported = 0;
  private broken = false;
  private readonly sink: Writable;
  private readonly maxPending: number;
  private readonly flushTimeoutMs: number;
  private readonly format: ((line: string) => string) | undefined;
  private readonly tail: { push(line: string): void } | undefined;

  constructor(opts: LogOutputOptions) {
    this.sink = opts.sink;
    this.maxPending = opts.maxPendingBytes ?? 1024 * 1024;
    this.flushTimeoutMs = opts.flushTimeoutMs ?? 250;
    this.format = opts.format;
    this.tail = opts.tail;
    // EPIPE (the reader exited) and friends: logging stops, the hub does not.
    this.sink.on('error', () => {
      this.broken = true;
    });
    this.sink.on('drain', () => this.resume());
  }

  /** Bytes written but not yet taken by the reader. */
  get pendingBytes(): number {
    return this.sink.writableLength;
  }

  /**
   * Whether a line of `length` would be written now rather than dropped. Once lines are being dropped,
   * output resumes only when the reader has taken half of the backlog, so the log has one gap (and one
   * report of it) rather than many.
   */
  accepts(length = 0): boolean {
    if (this.broken || this.sink.destroyed || !this.sink.writable) return false;
    const pending = this.sink.writableLength;
    // One line longer than the whole budget still goes out when nothing else waits.
    if (pending === 0) return true;
    const limit = this.unreported > 0 ? this.maxPending / 2 : this.maxPending;
    return pending + length <= limit;
  }

  /** pino's destination interface. */
  write(line: string): void {
    if (!this.accepts(line.length)) {
      this.drop();
      return;
    }
    if (this.unreported > 0) this.resume();
    this.tail?.push(line);
    try {
      this.sink.write(this.format ? this.format(line) : line);
    } catch {
      // A synchronous sink (a file) that failed, e.g. a full disk.
      this.drop();
    }
  }

  /** Waits for the reader to take what is pending, at most `flushTimeoutMs`; never fails. */
  flush(done: (err?: Error) => void = () => {}): void {
    if (this.broken || this.sink.writableLength === 0) {
      queueMicrotask(() => done());
      return;
    }
    const finish = () => {
      clearTimeout(timer);
      this.sink.off('drain', finish);
      this.sink.off('error', finish);
      done();
    };
    const timer = setTimeout(finish, this.flushTimeoutMs);
    this.sink.once('drain', finish);
    this.sink.once('error', finish);
  }

  private drop(): void {
    this.dropped++;
    this.unreported++;
  }

  private resume(): void {
    if (this.unreported === 0 || !this.accepts()) return;
    const count = this.unreported;
    this.unreported = 0;
    this.reportDrops(count);
  }
}
