/**
 * Little-endian field codecs for MT command payloads, driven by a list of named, typed fields.
 * IEEE addresses travel little-endian and are shown as `0x` + 16 hex digits, most significant first.
 */

export type FieldType =
  | 'u8'
  | 'u16'
  | 'u32'
  | 'ieee'
  /** A u8 length, then that many bytes. */
  | 'bytes'
  /** A u16 length, then that many bytes. */
  | 'bytes16'
  /** A u8 count, then that many u16. */
  | 'u16list'
  /** A u8 count, then that many u8. */
  | 'u8list'
  /** Whatever is left of the payload. */
  | 'rest';

export type Field = readonly [name: string, type: FieldType];
export type FieldValue = number | string | Buffer | number[];
export type Fields = Record<string, FieldValue>;

export class TruncatedPayloadError extends Error {
  constructor(field: string) {
    super(`payload ends before field ${field}`);
    this.name = 'TruncatedPayloadError';
  }
}

export const ieeeToBuffer = (ieee: string): Buffer => {
  const hex = ieee.replace(/^0x/i, '').padStart(16, '0');
  if (!/^[0-9a-f]{16}$/i.test(hex)) throw new TypeError(`not an IEEE address: ${ieee}`);
  return Buffer.from(hex, 'hex').reverse();
};
export const bufferToIeee = (b: Buffer): string => `0x${Buffer.from(b).reverse().toString('hex')}`;

const num = (v: FieldValue | undefined, name: string): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`field ${name} must be an integer`);
  return v;
};

export function encodeFields(fields: readonly Field[], values: Fields): Buffer {
  const parts: Buffer[] = [];
  for (const [name, type] of fields) {
    const v = values[name];
    switch (type) {
      case 'u8':
        parts.push(Buffer.of(num(v, name) & 0xff));
        break;
      case 'u16': {
        const b = Buffer.alloc(2);
        b.writeUInt16LE(num(v, name) & 0xffff);
        parts.push(b);
        break;
      }
      case 'u32': {
        const b = Buffer.alloc(4);
        b.writeUInt32LE(num(v, name) >>> 0);
        parts.push(b);
        break;
      }
      case 'ieee':
        if (typeof v !== 'string') throw new TypeError(`field ${name} must be an IEEE address`);
        parts.push(ieeeToBuffer(v));
        break;
      case 'bytes': {
        const b = Buffer.isBuffer(v) ? v : Buffer.alloc(0);
        parts.push(Buffer.of(b.length), b);
        break;
      }
      case 'bytes16': {
        const b = Buffer.isBuffer(v) ? v : Buffer.alloc(0);
        const n = Buffer.alloc(2);
        n.writeUInt16LE(b.length);
        parts.push(n, b);
        break;
      }
      case 'rest':
        parts.push(Buffer.isBuffer(v) ? v : Buffer.alloc(0));
        break;
      case 'u16list':
      case 'u8list': {
        const list = Array.isArray(v) ? v : [];
        const size = type === 'u16list' ? 2 : 1;
        const b = Buffer.alloc(1 + list.length * size);
        b[0] = list.length;
        list.forEach((x, i) => {
          if (size === 2) b.writeUInt16LE(x & 0xffff, 1 + i * 2);
          else b[1 + i] = x & 0xff;
        });
        parts.push(b);
        break;
      }
    }
  }
  return Buffer.concat(parts);
}

export function decodeFields(fields: readonly Field[], data: Buffer): Fields {
  const out: Fields = Object.create(null);
  let at = 0;
  const need = (n: number, name: string) => {
    if (at + n > data.length) throw new TruncatedPayloadError(name);
  };
  for (const [name, type] of fields) {
    switch (type) {
      case 'u8':
        need(1, name);
        out[name] = data[at] as number;
        at += 1;
        break;
      case 'u16':
        need(2, name);
        out[name] = data.readUInt16LE(at);
        at += 2;
        break;
      case 'u32':
        need(4, name);
        out[name] = data.readUInt32LE(at);
        at += 4;
        break;
      case 'ieee':
        need(8, name);
        out[name] = bufferToIeee(data.subarray(at, at + 8));
        at += 8;
        break;
      case 'bytes': {
        need(1, name);
        const n = data[at] as number;
        need(1 + n, name);
        out[name] = Buffer.from(data.subarray(at + 1, at + 1 + n));
        at += 1 + n;
        break;
      }
      case 'bytes16': {
        need(2, name);
        const n = data.readUInt16LE(at);
        need(2 + n, name);
        out[name] = Buffer.from(data.subarray(at + 2, at + 2 + n));
        at += 2 + n;
        break;
      }
      case 'rest':
        out[name] = Buffer.from(data.subarray(at));
        at = data.length;
        break;
      case 'u16list':
      case 'u8list': {
        need(1, name);
        const n = data[at] as number;
        const size = type === 'u16list' ? 2 : 1;
        need(1 + n * size, name);
        const list: number[] = [];
        for (let i = 0; i < n; i++) {
          list.push(size === 2 ? data.readUInt16LE(at + 1 + i * 2) : (data[at + 1 + i] as number));
        }
        out[name] = list;
        at += 1 + n * size;
        break;
      }
    }
  }
  return out;
}
