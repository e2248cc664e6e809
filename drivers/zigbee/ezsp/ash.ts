/**
 * An ASH session (docs/zigbee.md#ash): the reset handshake (RST → RSTACK), DATA frames numbered 0..7
 * and acknowledged by the peer's ackNum, up to `window` of them unacknowledged, retransmitted (reTx set)
 * on a NAK or when no acknowledgement came within t_rx_ack, which adapts to the measured round trip.
 * One class serves both ends: the host (Hearth) and the simulated NCP.
 */
import type { Transport } from '../znp/transport.ts';
import { ASH_VERSION, type AshFrame, AshParser, encodeAsh, Reserved, ResetCode } from './ash-frame.ts';

export interface AshTimings {
  /** Initial t_rx_ack: how long a DATA frame waits for its acknowledgement. */
  ackMs: number;
  minAckMs: number;
  maxAckMs: number;
  /** How long the host waits for the RSTACK after its RST. */
  resetMs: number;
  /** Acknowledgement timeouts in a row after which the link has failed. */
  maxTimeouts: number;
  /** DATA frames in flight unacknowledged (1..7). */
  window: number;
}

export const ASH_TIMINGS: AshTimings = {
  ackMs: 1600,
  minAckMs: 400,
  maxAckMs: 3200,
  resetMs: 2500,
  maxTimeouts: 5,
  window: 3,
};

export class AshError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'AshError';
  }
}

/** Faults a simulated NCP injects (tests): acknowledgements it loses, good frames it rejects. */
export interface AshFaults {
  /** The next N ACK frames are not sent. */
  dropAcks: number;
  /** The next N good DATA frames are answered with a NAK and not taken. */
  nakData: number;
}

interface Outgoing {
  data: Buffer;
  frmNum: number;
  sentAt: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

const sleepless = () => {};

export class AshSession {
  readonly #t: AshTimings;
  readonly #transport: Transport;
  readonly #role: 'host' | 'ncp';
  readonly #parser: AshParser;
  readonly faults: AshFaults = { dropAcks: 0, nakData: 0 };
  readonly stats = { sent: 0, received: 0, retransmitted: 0, naksSent: 0, naksReceived: 0, timeouts: 0 };
  #connected = false;
  #txSeq = 0;
  #rxSeq = 0;
  #rejecting = false;
  #ackMs: number;
  #timeouts = 0;
  #queue: Outgoing[] = [];
  #inFlight: Outgoing[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #resetWait: { resolve: (code: number) => void; timer: ReturnType<typeof setTimeout> } | null = null;
  #dataListeners: Array<(ezsp: Buffer) => void> = [];
  #resetListeners: Array<(code: number) => void> = [];
  /** The reset code an NCP answers an RST with. */
  resetCode: number = ResetCode.SOFTWARE;

  constructor(transport: Transport, role: 'host' | 'ncp', timings: Partial<AshTimings> = {}) {
    this.#transport = transport;
    this.#role = role;
    this.#t = { ...ASH_TIMINGS, ...timings };
    this.#t.window = Math.max(1, Math.min(7, this.#t.window));
    this.#ackMs = this.#t.ackMs;
    this.#parser = new AshParser(
      (f) => this.#onFrame(f),
      () => this.#onBadFrame(),
    );
    transport.onData((b) => this.#parser.push(b));
    transport.onClose(() => this.#failAll(new AshError('the serial link closed')));
  }

  get connected(): boolean {
    return this.#connected;
  }

  get parserStats() {
    return this.#parser.stats;
  }

  /** The current acknowledgement timeout (adapts to the link). */
  get ackTimeoutMs(): number {
    return this.#ackMs;
  }

  /** EZSP frames from the peer, in order, each once. */
  onData(listener: (ezsp: Buffer) => void): void {
    this.#dataListeners.push(listener);
  }

  /**
   * Host: the NCP reset or failed without being asked (an RSTACK out of the blue, an ERROR frame).
   * NCP: the host asked for a reset (an RST).
   */
  onReset(listener: (code: number) => void): void {
    this.#resetListeners.push(listener);
  }

  /** Host: CANCEL + RST, then waits for the NCP's RSTACK; resolves with its reset code. */
  reset(): Promise<number> {
    this.#failAll(new AshError('the link was reset'));
    this.#parser.reset();
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#resetWait = null;
        reject(new AshError(`no RSTACK within ${this.#t.resetMs} ms`));
      }, this.#t.resetMs);
      this.#resetWait = { resolve, timer };
      this.#write({ type: 'rst' }, true).catch(sleepless);
    });
  }

  /** NCP: announces a restart of its own (power-on, watchdog) with an RSTACK. */
  announceReset(code: number): void {
    this.#restart();
    this.#connected = true;
    void this.#write({ type: 'rstack', version: ASH_VERSION, code }).catch(sleepless);
  }

  /** Sends one EZSP frame; resolves once the peer acknowledged it. */
  send(data: Buffer): Promise<void> {
    if (!this.#connected) return Promise.reject(new AshError('the ASH link is not connected'));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ data, frmNum: 0, sentAt: 0, resolve, reject });
      this.#pump();
    });
  }

  close(): void {
    this.#failAll(new AshError('the ASH link was closed'));
    this.#connected = false;
  }

  #pump(): void {
    while (this.#connected && this.#queue.length && this.#inFlight.length < this.#t.window) {
      const o = this.#queue.shift() as Outgoing;
      o.frmNum = this.#txSeq;
      this.#txSeq = (this.#txSeq + 1) & 7;
      o.sentAt = Date.now();
      this.#inFlight.push(o);
      this.stats.sent++;
      this.#write({ type: 'data', frmNum: o.frmNum, reTx: false, ackNum: this.#rxSeq, data: o.data }).catch(
        sleepless,
      );
    }
    this.#arm();
  }

  #arm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (!this.#inFlight.length) return;
    this.#timer = setTimeout(() => this.#ackTimeout(), this.#ackMs);
  }

  #ackTimeout(): void {
    this.#timer = null;
    this.stats.timeouts++;
    this.#timeouts++;
    this.#ackMs = Math.min(this.#t.maxAckMs, this.#ackMs * 2);
    if (this.#timeouts >= this.#t.maxTimeouts) {
      this.#connected = false;
      this.#failAll(new AshError('no acknowledgement from the stick', ResetCode.EXCEEDED_ACK_TIMEOUTS));
      for (const l of this.#resetListeners) l(ResetCode.EXCEEDED_ACK_TIMEOUTS);
      return;
    }
    this.#retransmit();
  }

  #retransmit(): void {
    for (const o of this.#inFlight) {
      this.stats.retransmitted++;
      this.#write({ type: 'data', frmNum: o.frmNum, reTx: true, ackNum: this.#rxSeq, data: o.data }).catch(
        sleepless,
      );
    }
    this.#arm();
  }

  /** ackNum is the number of the next frame the peer expects: every frame in flight before it is acknowledged. */
  #acknowledge(ackNum: number): void {
    const first = this.#inFlight[0];
    if (!first) return;
    const count = (ackNum - first.frmNum) & 7;
    if (count === 0 || count > this.#inFlight.length) return;
    const done = this.#inFlight.splice(0, count);
    const last = done[done.length - 1] as Outgoing;
    // t_rx_ack := 7/8 t_rx_ack + 1/2 measured, within its bounds.
    const measured = Date.now() - last.sentAt;
    this.#ackMs = Math.max(
      this.#t.minAckMs,
      Math.min(this.#t.maxAckMs, (7 / 8) * this.#ackMs + measured / 2),
    );
    this.#timeouts = 0;
    for (const o of done) o.resolve();
    this.#pump();
  }

  #onFrame(f: AshFrame): void {
    switch (f.type) {
      case 'rst':
        if (this.#role !== 'ncp') return;
        this.#restart();
        this.#connected = true;
        // An NCP restarts its whole application on an RST, not only the link.
        for (const l of this.#resetListeners) l(this.resetCode);
        void this.#write({ type: 'rstack', version: ASH_VERSION, code: this.resetCode }).catch(sleepless);
        return;
      case 'rstack':
      case 'error': {
        if (this.#role !== 'host') return;
        const wait = this.#resetWait;
        if (f.type === 'rstack' && wait) {
          clearTimeout(wait.timer);
          this.#resetWait = null;
          this.#restart();
          this.#connected = true;
          wait.resolve(f.code);
          return;
        }
        // The NCP restarted or failed under us: what was in flight is lost.
        this.#connected = false;
        this.#failAll(new AshError(`the stick reset (code 0x${f.code.toString(16)})`, f.code));
        for (const l of this.#resetListeners) l(f.code);
        return;
      }
      case 'ack':
        if (!this.#connected) return;
        this.#acknowledge(f.ackNum);
        return;
      case 'nak':
        if (!this.#connected) return;
        this.stats.naksReceived++;
        this.#acknowledge(f.ackNum);
        this.#retransmit();
        return;
      case 'data':
        if (!this.#connected) return;
        this.#acknowledge(f.ackNum);
        this.#onData(f);
        return;
    }
  }

  #onData(f: Extract<AshFrame, { type: 'data' }>): void {
    if (f.frmNum === this.#rxSeq) {
      if (this.faults.nakData > 0) {
        this.faults.nakData--;
        this.#nak();
        return;
      }
      this.#rejecting = false;
      this.#rxSeq = (this.#rxSeq + 1) & 7;
      this.stats.received++;
      this.#ack();
      for (const l of this.#dataListeners) l(f.data);
      return;
    }
    // A retransmission of a frame already taken: acknowledge again, deliver nothing.
    if (f.reTx) {
      this.#ack();
      return;
    }
    // Out of sequence: one NAK per reject condition (UG101), then silence until the right frame.
    if (!this.#rejecting) this.#nak();
  }

  #onBadFrame(): void {
    if (this.#connected && !this.#rejecting) this.#nak();
  }

  #ack(): void {
    if (this.faults.dropAcks > 0) {
      this.faults.dropAcks--;
      return;
    }
    void this.#write({ type: 'ack', ackNum: this.#rxSeq, notReady: false }).catch(sleepless);
  }

  #nak(): void {
    this.#rejecting = true;
    this.stats.naksSent++;
    void this.#write({ type: 'nak', ackNum: this.#rxSeq, notReady: false }).catch(sleepless);
  }

  #restart(): void {
    this.#failAll(new AshError('the link was reset'));
    this.#txSeq = 0;
    this.#rxSeq = 0;
    this.#rejecting = false;
    this.#timeouts = 0;
    this.#ackMs = this.#t.ackMs;
  }

  #failAll(err: Error): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const o of [...this.#inFlight.splice(0), ...this.#queue.splice(0)]) o.reject(err);
  }

  #write(f: AshFrame, cancelFirst = false): Promise<void> {
    const bytes = encodeAsh(f);
    return this.#transport.write(cancelFirst ? Buffer.concat([Buffer.of(Reserved.CANCEL), bytes]) : bytes);
  }
}
