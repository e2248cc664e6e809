/**
 * ASH frames, the UART link layer under EZSP (docs/zigbee.md#ash): control byte, data, CRC-CCITT, byte
 * stuffing and the flag byte; the data field of DATA frames is XORed with a fixed pseudo-random sequence.
 */

/** Bytes with a meaning on the line; inside a frame they travel escaped. */
export const Reserved = {
  FLAG: 0x7e,
  ESCAPE: 0x7d,
  XON: 0x11,
  XOFF: 0x13,
  /** A byte the UART received with an error: the frame it is in is dropped. */
  SUBSTITUTE: 0x18,
  /** Ends a frame in progress without a frame: what came since the last flag is dropped. */
  CANCEL: 0x1a,
} as const;
const RESERVED = new Set<number>(Object.values(Reserved));
const ESCAPE_BIT = 0x20;

/** RSTACK/ERROR reset codes (why the NCP restarted or failed). */
export const ResetCode = {
  UNKNOWN: 0x00,
  EXTERNAL: 0x01,
  POWER_ON: 0x02,
  WATCHDOG: 0x03,
  ASSERT: 0x06,
  BOOTLOADER: 0x09,
  SOFTWARE: 0x0b,
  EXCEEDED_ACK_TIMEOUTS: 0x51,
  CHIP_SPECIFIC: 0x80,
} as const;

/** The ASH version an RSTACK and an ERROR frame carry. */
export const ASH_VERSION = 2;

export type AshFrame =
  | { type: 'data'; frmNum: number; reTx: boolean; ackNum: number; data: Buffer }
  | { type: 'ack'; ackNum: number; notReady: boolean }
  | { type: 'nak'; ackNum: number; notReady: boolean }
  | { type: 'rst' }
  | { type: 'rstack'; version: number; code: number }
  | { type: 'error'; version: number; code: number };

/** CRC-CCITT (polynomial 0x1021, initial 0xFFFF, no reflection), sent most significant byte first. */
export function crcCcitt(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The data randomisation sequence: an 8-bit LFSR seeded with 0x42; each next byte is the previous one
 * shifted right, XORed with 0xB8 when the bit shifted out was 1.
 */
const SEQUENCE = (() => {
  const out = Buffer.alloc(256);
  let r = 0x42;
  for (let i = 0; i < out.length; i++) {
    out[i] = r;
    r = r & 1 ? (r >> 1) ^ 0xb8 : r >> 1;
  }
  return out;
})();

/** XORs the sequence onto `data` (the same call undoes it). */
export function randomise(data: Buffer): Buffer {
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (data[i] as number) ^ (SEQUENCE[i % 256] as number);
  return out;
}

function control(f: AshFrame): number {
  switch (f.type) {
    case 'data':
      return ((f.frmNum & 7) << 4) | (f.reTx ? 0x08 : 0) | (f.ackNum & 7);
    case 'ack':
      return 0x80 | (f.notReady ? 0x08 : 0) | (f.ackNum & 7);
    case 'nak':
      return 0xa0 | (f.notReady ? 0x08 : 0) | (f.ackNum & 7);
    case 'rst':
      return 0xc0;
    case 'rstack':
      return 0xc1;
    case 'error':
      return 0xc2;
  }
}

/** The frame before stuffing: control, data, CRC. */
export function frameBody(f: AshFrame): Buffer {
  const data =
    f.type === 'data'
      ? randomise(f.data)
      : f.type === 'rstack' || f.type === 'error'
        ? Buffer.of(f.version, f.code)
        : Buffer.alloc(0);
  const body = Buffer.concat([Buffer.of(control(f)), data, Buffer.alloc(2)]);
  body.writeUInt16BE(crcCcitt(body.subarray(0, body.length - 2)), body.length - 2);
  return body;
}

export function stuff(body: Buffer): Buffer {
  const out: number[] = [];
  for (const b of body) {
    if (RESERVED.has(b)) out.push(Reserved.ESCAPE, b ^ ESCAPE_BIT);
    else out.push(b);
  }
  return Buffer.from(out);
}

/** A frame as it goes on the line: stuffed, ended by the flag byte. */
export function encodeAsh(f: AshFrame): Buffer {
  return Buffer.concat([stuff(frameBody(f)), Buffer.of(Reserved.FLAG)]);
}

/** Decodes an unstuffed frame body; null when its CRC or shape is wrong. */
export function decodeAshBody(body: Buffer): AshFrame | null {
  if (body.length < 3) return null;
  const crc = body.readUInt16BE(body.length - 2);
  if (crcCcitt(body.subarray(0, body.length - 2)) !== crc) return null;
  const c = body[0] as number;
  const data = body.subarray(1, body.length - 2);
  if ((c & 0x80) === 0)
    return { type: 'data', frmNum: (c >> 4) & 7, reTx: !!(c & 0x08), ackNum: c & 7, data: randomise(data) };
  if ((c & 0xe0) === 0x80 && data.length === 0) return { type: 'ack', ackNum: c & 7, notReady: !!(c & 0x08) };
  if ((c & 0xe0) === 0xa0 && data.length === 0) return { type: 'nak', ackNum: c & 7, notReady: !!(c & 0x08) };
  if (c === 0xc0 && data.length === 0) return { type: 'rst' };
  if ((c === 0xc1 || c === 0xc2) && data.length === 2)
    return { type: c === 0xc1 ? 'rstack' : 'error', version: data[0] as number, code: data[1] as number };
  return null;
}

export interface AshParserStats {
  frames: number;
  /** Frames dropped for a bad CRC, a bad escape or an unknown shape. */
  bad: number;
  /** Frames cut short by a CANCEL or a SUBSTITUTE byte. */
  cancelled: number;
}

/**
 * Splits the byte stream into frames at flag bytes, unstuffing as it goes. A bad frame is reported to
 * `onBad` (the session answers it with a NAK); XON/XOFF are dropped (software flow control is the UART's).
 */
export class AshParser {
  #buf: number[] = [];
  #escaped = false;
  #discard = false;
  readonly stats: AshParserStats = { frames: 0, bad: 0, cancelled: 0 };

  constructor(
    private readonly onFrame: (f: AshFrame) => void,
    private readonly onBad: () => void = () => {},
  ) {}

  reset(): void {
    this.#buf = [];
    this.#escaped = false;
    this.#discard = false;
  }

  push(chunk: Buffer): void {
    for (const b of chunk) this.#byte(b);
  }

  #byte(b: number): void {
    switch (b) {
      case Reserved.FLAG: {
        const bytes = this.#buf;
        const bad = this.#escaped;
        const discard = this.#discard;
        this.reset();
        if (discard || bytes.length === 0) return;
        const f = bad ? null : decodeAshBody(Buffer.from(bytes));
        if (!f) {
          this.stats.bad++;
          this.onBad();
          return;
        }
        this.stats.frames++;
        this.onFrame(f);
        return;
      }
      case Reserved.CANCEL:
        if (this.#buf.length) this.stats.cancelled++;
        this.reset();
        return;
      case Reserved.SUBSTITUTE:
        this.stats.cancelled++;
        this.#discard = true;
        return;
      case Reserved.XON:
      case Reserved.XOFF:
        return;
      case Reserved.ESCAPE:
        this.#escaped = true;
        return;
      default:
        if (this.#discard) return;
        if (this.#escaped) {
          this.#escaped = false;
          const v = b ^ ESCAPE_BIT;
          if (!RESERVED.has(v)) {
            // Only reserved bytes are escaped: this frame is corrupt.
            this.#discard = true;
            this.stats.bad++;
            this.onBad();
            return;
          }
          this.#buf.push(v);
        } else this.#buf.push(b);
        if (this.#buf.length > 256) {
          this.#discard = true;
          this.stats.bad++;
        }
    }
  }
}
