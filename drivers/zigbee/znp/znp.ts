/**
 * The ZNP request layer: one SREQ in flight at a time, each answered by its SRSP or failed by a timeout;
 * AREQ waiters for the indications a request leads to; every other AREQ goes to the listeners.
 */
import type { Fields } from './codec.ts';
import { decodeMt, MT, type MtMessage, type MtName, mtFrame } from './mt.ts';
import type { Transport } from './transport.ts';
import { encodeFrame, type Frame, FrameType, UnpiParser } from './unpi.ts';

export const TIMEOUTS = { sreqMs: 6_000, areqMs: 10_000 } as const;

export class ZnpTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.name = 'ZnpTimeoutError';
  }
}

export class ZnpStatusError extends Error {
  constructor(
    readonly command: string,
    readonly status: number,
  ) {
    super(`${command} failed with status 0x${status.toString(16).padStart(2, '0')}`);
    this.name = 'ZnpStatusError';
  }
}

export class ZnpClosedError extends Error {
  constructor() {
    super('the stick is not connected');
    this.name = 'ZnpClosedError';
  }
}

interface Pending {
  name: MtName;
  timeoutMs: number;
  values: Fields;
  resolve: (f: Fields) => void;
  reject: (e: Error) => void;
}

interface Waiter {
  name: MtName;
  match: (f: Fields) => boolean;
  resolve: (f: Fields) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface AreqWait {
  promise: Promise<Fields>;
  cancel(): void;
}

export class Znp {
  readonly #transport: Transport;
  readonly #parser: UnpiParser;
  #queue: Pending[] = [];
  #inFlight: (Pending & { timer: ReturnType<typeof setTimeout> }) | null = null;
  #waiters: Waiter[] = [];
  #listeners: Array<(m: MtMessage) => void> = [];
  #closed = false;
  /** Frames the parser could not name or decode; for diagnostics. */
  unknownFrames = 0;

  constructor(transport: Transport) {
    this.#transport = transport;
    this.#parser = new UnpiParser((f) => this.#onFrame(f));
    transport.onData((chunk) => this.#parser.push(chunk));
    transport.onClose(() => this.#fail(new ZnpClosedError()));
  }

  get parserStats() {
    return this.#parser.stats;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Every AREQ, after the waiter it answers (if any). */
  onAreq(listener: (m: MtMessage) => void): void {
    this.#listeners.push(listener);
  }

  /** Sends an SREQ and resolves with its SRSP fields; queued behind the one in flight. */
  request(name: MtName, values: Fields = {}, timeoutMs: number = TIMEOUTS.sreqMs): Promise<Fields> {
    if (this.#closed) return Promise.reject(new ZnpClosedError());
    return new Promise<Fields>((resolve, reject) => {
      this.#queue.push({ name, values, timeoutMs, resolve, reject });
      this.#next();
    });
  }

  /** `request`, then a non-zero `status` in the answer is an error. */
  async call(name: MtName, values: Fields = {}, timeoutMs?: number): Promise<Fields> {
    const rsp = await this.request(name, values, timeoutMs);
    if (typeof rsp.status === 'number' && rsp.status !== 0) throw new ZnpStatusError(name, rsp.status);
    return rsp;
  }

  /** Sends an AREQ (no answer expected). */
  async post(name: MtName, values: Fields = {}): Promise<void> {
    if (this.#closed) throw new ZnpClosedError();
    await this.#write(mtFrame(name, values));
  }

  /** Waits for an AREQ; register it before sending what causes it. */
  waitFor(
    name: MtName,
    match: (f: Fields) => boolean = () => true,
    timeoutMs: number = TIMEOUTS.areqMs,
  ): AreqWait {
    let waiter!: Waiter;
    const promise = new Promise<Fields>((resolve, reject) => {
      waiter = {
        name,
        match,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#drop(waiter);
          reject(new ZnpTimeoutError(`waiting for ${name}`, timeoutMs));
        }, timeoutMs),
      };
    });
    if (this.#closed) {
      clearTimeout(waiter.timer);
      waiter.reject(new ZnpClosedError());
    } else this.#waiters.push(waiter);
    promise.catch(() => {}); // a cancelled or unobserved wait is not an unhandled rejection
    return {
      promise,
      cancel: () => {
        clearTimeout(waiter.timer);
        this.#drop(waiter);
      },
    };
  }

  async close(): Promise<void> {
    this.#fail(new ZnpClosedError());
    await this.#transport.close();
  }

  #drop(w: Waiter): void {
    const i = this.#waiters.indexOf(w);
    if (i >= 0) this.#waiters.splice(i, 1);
  }

  #write(frame: Frame): Promise<void> {
    return this.#transport.write(encodeFrame(frame));
  }

  #next(): void {
    if (this.#inFlight || this.#closed) return;
    const p = this.#queue.shift();
    if (!p) return;
    const timer = setTimeout(() => {
      this.#inFlight = null;
      p.reject(new ZnpTimeoutError(p.name, p.timeoutMs));
      this.#next();
    }, p.timeoutMs);
    this.#inFlight = { ...p, timer };
    this.#write(mtFrame(p.name, p.values)).catch((err: Error) => {
      if (this.#inFlight?.timer !== timer) return;
      clearTimeout(timer);
      this.#inFlight = null;
      p.reject(err);
      this.#next();
    });
  }

  #onFrame(frame: Frame): void {
    let msg: MtMessage | null;
    try {
      msg = decodeMt(frame);
    } catch {
      msg = null;
    }
    if (!msg) {
      this.unknownFrames++;
      return;
    }
    if (frame.type === FrameType.SRSP) {
      const p = this.#inFlight;
      const c = p ? MT[p.name] : null;
      // An SRSP that answers nothing in flight (a late one after a timeout) is dropped.
      if (!p || !c || c.subsystem !== frame.subsystem || c.id !== frame.command) return;
      clearTimeout(p.timer);
      this.#inFlight = null;
      p.resolve(msg.fields);
      this.#next();
      return;
    }
    if (frame.type !== FrameType.AREQ) return;
    const w = this.#waiters.find((x) => x.name === msg.name && x.match(msg.fields));
    if (w) {
      clearTimeout(w.timer);
      this.#drop(w);
      w.resolve(msg.fields);
    }
    for (const l of this.#listeners) l(msg);
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#inFlight) {
      clearTimeout(this.#inFlight.timer);
      this.#inFlight.reject(err);
      this.#inFlight = null;
    }
    for (const p of this.#queue.splice(0)) p.reject(err);
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}
