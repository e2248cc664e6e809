/** ZCL attribute data types and their codecs (ZCL r7 §2.6.2, table 2-10). */

export const DataType = {
  BOOL: 0x10,
  BITMAP8: 0x18,
  BITMAP16: 0x19,
  UINT8: 0x20,
  UINT16: 0x21,
  UINT24: 0x22,
  UINT32: 0x23,
  UINT40: 0x24,
  UINT48: 0x25,
  INT8: 0x28,
  INT16: 0x29,
  INT24: 0x2a,
  INT32: 0x2b,
  ENUM8: 0x30,
  ENUM16: 0x31,
  /** IEEE 754 single precision. */
  SINGLE: 0x39,
  OCTET_STR: 0x41,
  CHAR_STR: 0x42,
  /** EUI64 (an IEEE address), eight bytes little-endian; shown as `0x` + 16 hex digits. */
  IEEE_ADDR: 0xf0,
} as const;

export type AttrValue = number | boolean | string;

const FIXED: Record<number, number> = {
  [DataType.BOOL]: 1,
  [DataType.BITMAP8]: 1,
  [DataType.UINT8]: 1,
  [DataType.INT8]: 1,
  [DataType.ENUM8]: 1,
  [DataType.BITMAP16]: 2,
  [DataType.UINT16]: 2,
  [DataType.INT16]: 2,
  [DataType.ENUM16]: 2,
  [DataType.UINT24]: 3,
  [DataType.UINT32]: 4,
  [DataType.UINT40]: 5,
  [DataType.UINT48]: 6,
  [DataType.INT24]: 3,
  [DataType.INT32]: 4,
  [DataType.SINGLE]: 4,
};

const SIGNED = new Set<number>([DataType.INT8, DataType.INT16, DataType.INT24, DataType.INT32]);

/** The size of a fixed-size value of `type`, or undefined (strings, unknown types). */
export const fixedSize = (type: number): number | undefined => FIXED[type];

export class UnsupportedTypeError extends Error {
  constructor(type: number) {
    super(`ZCL data type 0x${type.toString(16)} is not supported`);
    this.name = 'UnsupportedTypeError';
  }
}

export function encodeValue(type: number, value: AttrValue): Buffer {
  if (type === DataType.IEEE_ADDR) {
    const hex = String(value).replace(/^0x/i, '');
    if (!/^[0-9a-f]{16}$/i.test(hex)) throw new TypeError(`not an IEEE address: ${String(value)}`);
    return Buffer.from(hex, 'hex').reverse();
  }
  if (type === DataType.CHAR_STR || type === DataType.OCTET_STR) {
    // A string given in `latin1` carries bytes as they are (a vendor's binary struct in a string).
    const s = Buffer.from(String(value), type === DataType.OCTET_STR ? 'latin1' : 'utf8').subarray(0, 254);
    return Buffer.concat([Buffer.of(s.length), s]);
  }
  const size = FIXED[type];
  if (size === undefined) throw new UnsupportedTypeError(type);
  const n = typeof value === 'boolean' ? Number(value) : Number(value);
  const b = Buffer.alloc(size);
  if (type === DataType.SINGLE) b.writeFloatLE(n, 0);
  else if (SIGNED.has(type)) b.writeIntLE(n, 0, size);
  else b.writeUIntLE(n, 0, size);
  return b;
}

/**
 * Decodes one value at `at`; returns it and how many bytes it took. A string also comes back as its
 * bytes (`raw`): vendors put binary structs in character strings (Xiaomi's 0xFF01).
 */
export function decodeValue(
  type: number,
  b: Buffer,
  at: number,
): { value: AttrValue; size: number; raw?: Buffer } {
  if (type === DataType.IEEE_ADDR) {
    if (at + 8 > b.length) throw new RangeError('value runs past the frame');
    return {
      value: `0x${Buffer.from(b.subarray(at, at + 8))
        .reverse()
        .toString('hex')}`,
      size: 8,
    };
  }
  if (type === DataType.CHAR_STR || type === DataType.OCTET_STR) {
    const n = b[at];
    if (n === undefined) throw new RangeError('string length missing');
    if (n === 0xff) return { value: '', size: 1, raw: Buffer.alloc(0) }; // invalid string (ZCL r7 §2.6.2.11)
    if (at + 1 + n > b.length) throw new RangeError('string runs past the frame');
    const raw = Buffer.from(b.subarray(at + 1, at + 1 + n));
    return { value: raw.toString(type === DataType.OCTET_STR ? 'latin1' : 'utf8'), size: 1 + n, raw };
  }
  const size = FIXED[type];
  if (size === undefined) throw new UnsupportedTypeError(type);
  if (at + size > b.length) throw new RangeError('value runs past the frame');
  if (type === DataType.BOOL) return { value: b[at] === 1, size };
  if (type === DataType.SINGLE) return { value: b.readFloatLE(at), size };
  const value = SIGNED.has(type) ? b.readIntLE(at, size) : b.readUIntLE(at, size);
  return { value, size };
}
