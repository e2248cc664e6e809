/**
 * The EZSP request layer over an ASH session: one command in flight at a time (UG100: the host waits for
 * a command's response before the next), answered by the response with the same sequence number and
 * frame id, or failed by a timeout; callbacks (frames the NCP sends on its own) go to waiters and listeners.
 */
import type { AshSession } from './ash.ts';
import { Reader } from './codec.ts';
import {
  decodeFrame,
  encodeCommand,
  encodeLegacyVersion,
  FrameId,
  type FrameName,
  frameName,
} from './frame.ts';

/** The protocol version Hearth asks for first: EmberZNet 7.4 (protocol 13). Newer sticks answer theirs. */
export const DESIRED_PROTOCOL = 13;
/** The oldest protocol Hearth speaks: the extended frame format came with 8; 13 is EmberZNet 7.x's. */
export const MIN_PROTOCOL = 8;

export class EzspTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.name = 'EzspTimeoutError';
  }
}

export class EzspStatusError extends Error {
  constructor(
    readonly command: string,
    readonly status: number,
  ) {
    super(`${command} failed with status 0x${status.toString(16).padStart(2, '0')}`);
    this.name = 'EzspStatusError';
  }
}

export interface VersionInfo {
  protocol: number;
  stackType: number;
  /** EmberZNet version as four nibbles: 0x7410 is 7.4.1.0. */
  stackVersion: number;
}

/** The stick does not know the command (it answered `invalidCommand`): older or trimmed firmware. */
export class EzspInvalidCommandError extends Error {
  constructor(
    readonly command: string,
    readonly reason: number,
  ) {
    super(`${command}: the stick does not know this command (EzspStatus 0x${reason.toString(16)})`);
    this.name = 'EzspInvalidCommandError';
  }
}

interface InFlight {
  seq: number;
  frameId: number;
  what: string;
  resolve: (r: Buffer) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

interface Waiter {
  frameId: number;
  match: (params: Buffer) => boolean;
  resolve: (params: Buffer) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface CallbackWait {
  promise: Promise<Buffer>;
  cancel(): void;
}

export const stackVersionString = (v: number): string =>
  [v >> 12, (v >> 8) & 0xf, (v >> 4) & 0xf, v & 0xf].join('.');

export class Ezsp {
  readonly #ash: AshSession;
  readonly #timeoutMs: number;
  /** The negotiated protocol version (frame layouts depend on it). */
  version = 0;
  #seq = 0;
  #chain: Promise<unknown> = Promise.resolve();
  #inFlight: InFlight | null = null;
  #waiters: Waiter[] = [];
  #listeners: Array<(frameId: number, params: Buffer) => void> = [];
  readonly stats = { commands: 0, callbacks: 0, undecodable: 0 };

  constructor(ash: AshSession, timeoutMs = 5000) {
    this.#ash = ash;
    this.#timeoutMs = timeoutMs;
    ash.onData((b) => this.#onFrame(b));
  }

  /**
   * `version` negotiation: first in the legacy format with the protocol Hearth prefers; a stick with a
   * newer protocol answers its own, and the command is sent again, extended, with that one.
   */
  async negotiate(desired = DESIRED_PROTOCOL): Promise<VersionInfo> {
    const first = await this.#send(FrameId.version, encodeLegacyVersion(this.#nextSeq(), desired), 'version');
    let info = parseVersion(first);
    if (info.protocol < MIN_PROTOCOL)
      throw new Error(`EZSP protocol ${info.protocol} is too old (EmberZNet 6.7 or later needed)`);
    this.version = info.protocol;
    if (info.protocol !== desired) {
      const again = await this.command('version', Buffer.of(info.protocol));
      info = parseVersion(again.bytes(again.remaining));
    }
    return info;
  }

  #nextSeq(): number {
    const s = this.#seq;
    this.#seq = (this.#seq + 1) & 0xff;
    return s;
  }

  /** One command and its response's parameters. */
  async command(name: FrameName, params: Buffer = Buffer.alloc(0), timeoutMs?: number): Promise<Reader> {
    const id = FrameId[name];
    const raw = await this.#send(id, null, name, params, timeoutMs);
    return new Reader(raw);
  }

  #send(
    frameId: number,
    prebuilt: Buffer | null,
    what: string,
    params: Buffer = Buffer.alloc(0),
    timeoutMs = this.#timeoutMs,
  ): Promise<Buffer> {
    const run = async () =>
      new Promise<Buffer>((resolve, reject) => {
        const seq = prebuilt ? (prebuilt[0] as number) : this.#nextSeq();
        const bytes = prebuilt ?? encodeCommand(seq, frameId, params);
        const timer = setTimeout(() => {
          this.#inFlight = null;
          reject(new EzspTimeoutError(what, timeoutMs));
        }, timeoutMs);
        this.#inFlight = { seq, frameId, what, resolve, reject, timer };
        this.stats.commands++;
        this.#ash.send(bytes).catch((err: Error) => {
          if (this.#inFlight?.seq !== seq) return;
          clearTimeout(timer);
          this.#inFlight = null;
          reject(err);
        });
      });
    const p = this.#chain.then(run, run);
    this.#chain = p.catch(() => {});
    return p;
  }

  /** Waits for a callback whose parameters `match`. Created before the command that causes it. */
  waitFor(name: FrameName, match: (params: Buffer) => boolean, timeoutMs = this.#timeoutMs): CallbackWait {
    let waiter: Waiter | undefined;
    const promise = new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new EzspTimeoutError(name, timeoutMs));
      }, timeoutMs);
      waiter = { frameId: FrameId[name], match, resolve, reject, timer };
      this.#waiters.push(waiter);
    });
    promise.catch(() => {});
    return {
      promise,
      cancel: () => {
        if (!waiter) return;
        clearTimeout(waiter.timer);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
      },
    };
  }

  onCallback(listener: (frameId: number, params: Buffer) => void): void {
    this.#listeners.push(listener);
  }

  /** Fails whatever waits (the link went away or the stick reset). */
  fail(err: Error): void {
    const f = this.#inFlight;
    this.#inFlight = null;
    if (f) {
      clearTimeout(f.timer);
      f.reject(err);
    }
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }

  #onFrame(b: Buffer): void {
    const f = decodeFrame(b);
    if (!f?.response) {
      this.stats.undecodable++;
      return;
    }
    const pending = this.#inFlight;
    if (!f.callback && pending && pending.seq === f.seq && pending.frameId === f.frameId) {
      clearTimeout(pending.timer);
      this.#inFlight = null;
      pending.resolve(f.params);
      return;
    }
    // UG100: an unknown frame id is answered with invalidCommand under the command's sequence number;
    // failing at once beats waiting out the timeout.
    if (!f.callback && pending && pending.seq === f.seq && f.frameId === FrameId.invalidCommand) {
      clearTimeout(pending.timer);
      this.#inFlight = null;
      pending.reject(new EzspInvalidCommandError(pending.what, f.params[0] ?? 0));
      return;
    }
    this.stats.callbacks++;
    for (const w of this.#waiters) {
      let ok = false;
      try {
        ok = w.frameId === f.frameId && w.match(f.params);
      } catch {
        ok = false;
      }
      if (!ok) continue;
      clearTimeout(w.timer);
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      w.resolve(f.params);
      break;
    }
    for (const l of this.#listeners) {
      try {
        l(f.frameId, f.params);
      } catch {
        this.stats.undecodable++;
      }
    }
  }

  /** For logs: a frame id's name. */
  static nameOf(id: number): string {
    return frameName(id) ?? `0x${id.toString(16).padStart(4, '0')}`;
  }
}

function parseVersion(b: Buffer): VersionInfo {
  const r = new Reader(b);
  return { protocol: r.u8(), stackType: r.u8(), stackVersion: r.u16() };
}
