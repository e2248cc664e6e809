/** EZSP parameter encoding: little-endian integers, IEEE addresses least significant byte first. */
import { ieeeFromBytes, ieeeToBytes } from '../zdo.ts';

export class Writer {
  readonly #parts: Buffer[] = [];
  u8(n: number): this {
    this.#parts.push(Buffer.of(n & 0xff));
    return this;
  }
  i8(n: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(Math.max(-128, Math.min(127, n)), 0);
    this.#parts.push(b);
    return this;
  }
  u16(n: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(n & 0xffff, 0);
    this.#parts.push(b);
    return this;
  }
  u32(n: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n >>> 0, 0);
    this.#parts.push(b);
    return this;
  }
  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }
  ieee(ieee: string): this {
    this.#parts.push(ieeeToBytes(ieee));
    return this;
  }
  bytes(b: Buffer): this {
    this.#parts.push(Buffer.from(b));
    return this;
  }
  /** A byte string with its length in one byte. */
  lv(b: Buffer): this {
    return this.u8(b.length).bytes(b);
  }
  done(): Buffer {
    return Buffer.concat(this.#parts);
  }
}

export class ShortFrameError extends Error {
  constructor() {
    super('EZSP frame shorter than its parameters');
    this.name = 'ShortFrameError';
  }
}

export class Reader {
  #o = 0;
  constructor(private readonly b: Buffer) {}
  #need(n: number): number {
    if (this.#o + n > this.b.length) throw new ShortFrameError();
    const at = this.#o;
    this.#o += n;
    return at;
  }
  u8(): number {
    return this.b[this.#need(1)] as number;
  }
  i8(): number {
    return this.b.readInt8(this.#need(1));
  }
  u16(): number {
    return this.b.readUInt16LE(this.#need(2));
  }
  u32(): number {
    return this.b.readUInt32LE(this.#need(4));
  }
  bool(): boolean {
    return this.u8() !== 0;
  }
  ieee(): string {
    const at = this.#need(8);
    return ieeeFromBytes(this.b.subarray(at, at + 8));
  }
  bytes(n: number): Buffer {
    const at = this.#need(n);
    return Buffer.from(this.b.subarray(at, at + n));
  }
  lv(): Buffer {
    return this.bytes(this.u8());
  }
  get remaining(): number {
    return this.b.length - this.#o;
  }
}
