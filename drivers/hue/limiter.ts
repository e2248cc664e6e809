/**
 * The bridge's limits, kept on Hearth's side (docs/hue.md#limits-of-the-bridge): commands spaced so that at
 * most ~10 light commands or 1 group command go out per second, at most three requests in flight, and a
 * newer command for a target that has not gone out yet merged into the waiting one (latest wins, nothing
 * dropped). 429 and 503 pause everything for a growing delay (or the bridge's Retry-After) and retry.
 */
import { HueHttpError } from './client.ts';

export type TargetType = 'light' | 'grouped_light' | 'scene';

export interface LimiterOptions {
  /** Spacing of light commands (default 100 ms: 10/s). */
  lightMs?: number;
  /** Spacing of group commands and scene recalls (default 1000 ms: 1/s). */
  groupMs?: number;
  maxInFlight?: number;
  /** First retry delay after a 429/503; the n-th waits n times as long (default 250 ms). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Attempts before a command is given up (default 10). */
  maxAttempts?: number;
}

interface Job {
  key: string;
  type: TargetType;
  id: string;
  body: Record<string, unknown>;
  attempts: number;
  waiters: Array<{ resolve(): void; reject(err: unknown): void }>;
}

export type Send = (type: TargetType, id: string, body: Record<string, unknown>) => Promise<void>;

export class CommandLimiter {
  readonly #send: Send;
  readonly #o: Required<LimiterOptions>;
  /** Jobs not yet sent, in order of their first command; one per target. */
  readonly #waiting = new Map<string, Job>();
  #inFlight = 0;
  /** When the next command may go out (GCRA's theoretical arrival time). */
  #nextAt = 0;
  #pausedUntil = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  /** Figures for the benchmark and the admin status. */
  readonly stats = { sent: 0, merged: 0, retried: 0 };

  constructor(send: Send, opts: LimiterOptions = {}) {
    this.#send = send;
    this.#o = {
      lightMs: opts.lightMs ?? 100,
      groupMs: opts.groupMs ?? 1000,
      maxInFlight: opts.maxInFlight ?? 3,
      backoffMs: opts.backoffMs ?? 250,
      maxBackoffMs: opts.maxBackoffMs ?? 10_000,
      maxAttempts: opts.maxAttempts ?? 10,
    };
  }

  get pending(): number {
    return this.#waiting.size + this.#inFlight;
  }

  /** Resolves once the bridge took the command (or a later one for the same target that includes it). */
  submit(type: TargetType, id: string, body: Record<string, unknown>): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the Hue driver is stopped'));
    return new Promise((resolve, reject) => {
      const key = `${type}/${id}`;
      const waiting = this.#waiting.get(key);
      if (waiting) {
        this.stats.merged++;
        waiting.body = mergeBodies(waiting.body, body);
        waiting.waiters.push({ resolve, reject });
      } else {
        this.#waiting.set(key, { key, type, id, body, attempts: 0, waiters: [{ resolve, reject }] });
      }
      this.#pump();
    });
  }

  /** Refuses what is waiting (the driver stopped). */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const err = new Error('the Hue driver is stopped');
    for (const job of this.#waiting.values()) for (const w of job.waiters) w.reject(err);
    this.#waiting.clear();
  }

  #pump(): void {
    if (this.#closed || this.#timer) return;
    while (this.#inFlight < this.#o.maxInFlight && this.#waiting.size > 0) {
      const now = Date.now();
      const at = Math.max(this.#nextAt, this.#pausedUntil);
      if (at > now) {
        this.#timer = setTimeout(() => {
          this.#timer = null;
          this.#pump();
        }, at - now);
        return;
      }
      const [key, job] = this.#waiting.entries().next().value as [string, Job];
      this.#waiting.delete(key);
      this.#nextAt = Math.max(this.#nextAt, now) + (job.type === 'light' ? this.#o.lightMs : this.#o.groupMs);
      this.#run(job);
    }
  }

  #run(job: Job): void {
    this.#inFlight++;
    job.attempts++;
    this.#send(job.type, job.id, job.body).then(
      () => {
        this.#inFlight--;
        this.stats.sent++;
        for (const w of job.waiters) w.resolve();
        this.#pump();
      },
      (err: unknown) => {
        this.#inFlight--;
        const busy = err instanceof HueHttpError && (err.status === 429 || err.status === 503);
        if (busy && job.attempts < this.#o.maxAttempts && !this.#closed) {
          this.stats.retried++;
          const delay = Math.min(this.#o.maxBackoffMs, err.retryAfterMs ?? this.#o.backoffMs * job.attempts);
          this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + delay);
          this.#requeue(job);
        } else {
          for (const w of job.waiters) w.reject(err);
        }
        this.#pump();
      },
    );
  }

  /** A refused command goes back first; a newer one for its target that arrived meanwhile wins. */
  #requeue(job: Job): void {
    const newer = this.#waiting.get(job.key);
    if (newer) {
      newer.body = mergeBodies(job.body, newer.body);
      newer.waiters.unshift(...job.waiters);
      newer.attempts = Math.max(newer.attempts, job.attempts);
      this.#waiting.delete(job.key);
      job = newer;
    }
    const rest = [...this.#waiting.entries()];
    this.#waiting.clear();
    this.#waiting.set(job.key, job);
    for (const [k, v] of rest) this.#waiting.set(k, v);
  }
}

/** Later values win, per top-level feature (`on`, `dimming`, `color`…). */
function mergeBodies(
  older: Record<string, unknown>,
  newer: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...older, ...newer };
  // A colour temperature and an xy colour exclude each other: the newer choice drops the older one.
  if ('color' in newer && !('color_temperature' in newer)) delete out.color_temperature;
  if ('color_temperature' in newer && !('color' in newer)) delete out.color;
  return out;
}
