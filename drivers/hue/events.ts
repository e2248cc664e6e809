/**
 * The bridge's event stream (docs/hue.md#the-event-stream): server-sent events with no keepalives, so a
 * read timeout ends a stream that went silent; every end is followed by a reconnect with back-off
 * (`min(2·attempt, 600)` s by default), and every (re)connect by the caller's full resync.
 * A quiet house is silent too: a stream ended by the read timeout is reopened at once without reporting
 * the link down; only when that reopening fails is the link down.
 */
import type { IncomingMessage } from 'node:http';

export interface HueEvent {
  type: string;
  data: Array<{ id: string; type: string } & Record<string, unknown>>;
}

export interface EventStreamOptions {
  open(): Promise<IncomingMessage>;
  /** The stream is open: resync and report the link up. Awaited before events are delivered. */
  onUp(): Promise<void>;
  onDown(reason: string): void;
  onEvents(events: HueEvent[]): void;
  readTimeoutMs?: number;
  /** Back-off step (default 2 s); attempt n waits min(n·step, max). */
  backoffStepMs?: number;
  backoffMaxMs?: number;
}

export class EventStreamReader {
  readonly #o: EventStreamOptions;
  #attempt = 0;
  #res: IncomingMessage | null = null;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  #up = false;
  readonly stats = { connects: 0, timeouts: 0 };

  constructor(opts: EventStreamOptions) {
    this.#o = opts;
  }

  /** Connects; resolves after the first attempt (up or not). */
  start(): Promise<void> {
    this.#stopped = false;
    return this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    this.#res?.destroy();
    this.#res = null;
  }

  /** Drops the current stream and reconnects now (the bridge moved, or a caller knows it is stale). */
  reconnect(): void {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    if (this.#res) this.#res.destroy();
    else void this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    let res: IncomingMessage;
    try {
      res = await this.#o.open();
    } catch (err) {
      this.#down((err as Error).message);
      return;
    }
    if (this.#stopped) {
      res.destroy();
      return;
    }
    this.#res = res;
    this.stats.connects++;
    let buffer = '';
    let timer: ReturnType<typeof setTimeout> | null = null;
    const readTimeout = this.#o.readTimeoutMs ?? 90_000;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        this.stats.timeouts++;
        silent = true;
        res.destroy(new Error(`event stream silent for ${readTimeout} ms`));
      }, readTimeout);
    };
    let reason = 'the bridge closed the event stream';
    let silent = false;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      arm();
      buffer += chunk;
      // Events end with a blank line; a partial one stays in the buffer.
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        this.#dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
      if (buffer.length > 1_000_000) res.destroy(new Error('event stream frame too large'));
    });
    res.on('error', (err) => {
      reason = err.message;
    });
    res.once('close', () => {
      if (timer) clearTimeout(timer);
      if (this.#res === res) this.#res = null;
      if (silent && this.#up && !this.#stopped) {
        // Reopen now; the resync that follows repairs whatever a dead stream may have missed.
        void this.#connect();
        return;
      }
      this.#down(reason);
    });
    arm();
    // Paused until the resync is done, so events apply on top of the full state, not under it.
    res.pause();
    try {
      await this.#o.onUp();
      this.#up = true;
      this.#attempt = 0;
    } catch (err) {
      res.destroy(err as Error);
      return;
    }
    res.resume();
  }

  #dispatch(frame: string): void {
    const data = frame
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (!data) return;
    try {
      const parsed = JSON.parse(data) as unknown;
      if (!Array.isArray(parsed)) return;
      const events = parsed.filter(
        (e): e is HueEvent => typeof e?.type === 'string' && Array.isArray(e?.data),
      );
      if (events.length > 0) this.#o.onEvents(events);
    } catch {
      // A frame that is not JSON is skipped; the next resync repairs anything it carried.
    }
  }

  #down(reason: string): void {
    if (this.#up || this.#attempt === 0) this.#o.onDown(reason);
    this.#up = false;
    if (this.#stopped) return;
    this.#attempt++;
    const step = this.#o.backoffStepMs ?? 2000;
    const wait = Math.min(step * this.#attempt, this.#o.backoffMaxMs ?? 600_000);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#connect();
    }, wait);
  }
}
