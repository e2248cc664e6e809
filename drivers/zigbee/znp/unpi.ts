/**
 * UNPI framing of Z-Stack's serial interface (docs/zigbee.md#framing-unpi):
 * `SOF | LEN | CMD0 | CMD1 | DATA… | FCS`, FCS the XOR of every byte after SOF.
 */

export const SOF = 0xfe;
/** The largest data part a frame may carry. */
export const MAX_DATA = 250;

export const FrameType = { POLL: 0, SREQ: 1, AREQ: 2, SRSP: 3 } as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export const Subsystem = {
  SYS: 1,
  MAC: 2,
  NWK: 3,
  AF: 4,
  ZDO: 5,
  SAPI: 6,
  UTIL: 7,
  DEBUG: 8,
  APP: 9,
  APP_CNF: 15,
} as const;
/** A subsystem number (kept open: a stick may speak ones the driver does not name). */
export type Subsystem = number;

export interface Frame {
  type: FrameType;
  subsystem: Subsystem;
  command: number;
  data: Buffer;
}

function fcs(buf: Buffer, from: number, to: number): number {
  let x = 0;
  for (let i = from; i < to; i++) x ^= buf[i] as number;
  return x;
}

export function encodeFrame({ type, subsystem, command, data }: Frame): Buffer {
  if (data.length > MAX_DATA) throw new RangeError(`UNPI data of ${data.length} bytes exceeds ${MAX_DATA}`);
  const out = Buffer.alloc(data.length + 5);
  out[0] = SOF;
  out[1] = data.length;
  out[2] = ((type & 0x07) << 5) | (subsystem & 0x1f);
  out[3] = command & 0xff;
  data.copy(out, 4);
  out[out.length - 1] = fcs(out, 1, out.length - 1);
  return out;
}

export interface ParserStats {
  /** Bytes skipped while looking for a start of frame. */
  garbage: number;
  /** Frames dropped for a bad checksum. */
  badFcs: number;
}

/**
 * Turns a byte stream into frames: skips to SOF, waits for a whole frame across reads, takes several
 * frames from one read, and drops a frame whose FCS is wrong (resynchronising on the byte after its SOF,
 * since the length byte of a corrupt frame cannot be trusted).
 */
export class UnpiParser {
  readonly stats: ParserStats = { garbage: 0, badFcs: 0 };
  #buf: Buffer = Buffer.alloc(0);

  readonly #onFrame: (frame: Frame) => void;

  constructor(onFrame: (frame: Frame) => void) {
    this.#onFrame = onFrame;
  }

  push(chunk: Buffer): void {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    let at = 0;
    const buf = this.#buf;
    while (at < buf.length) {
      if (buf[at] !== SOF) {
        at++;
        this.stats.garbage++;
        continue;
      }
      if (buf.length - at < 5) break;
      const len = buf[at + 1] as number;
      if (len > MAX_DATA) {
        at++;
        this.stats.garbage++;
        continue;
      }
      const end = at + 5 + len;
      if (end > buf.length) break;
      if (fcs(buf, at + 1, end - 1) !== buf[end - 1]) {
        this.stats.badFcs++;
        at++;
        continue;
      }
      const cmd0 = buf[at + 2] as number;
      const frame: Frame = {
        type: (cmd0 >> 5) as FrameType,
        subsystem: cmd0 & 0x1f,
        command: buf[at + 3] as number,
        data: Buffer.from(buf.subarray(at + 4, end - 1)),
      };
      at = end;
      this.#onFrame(frame);
    }
    this.#buf = at >= buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(at));
  }

  reset(): void {
    this.#buf = Buffer.alloc(0);
  }
}
