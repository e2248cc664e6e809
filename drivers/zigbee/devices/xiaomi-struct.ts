/**
 * Xiaomi's heartbeat: Basic cluster attribute 0xFF01, a character string whose bytes are a list of
 * `tag u8 | ZCL type u8 | value` (the value encoded as that ZCL type). Sent about once an hour by every
 * Aqara/Xiaomi battery device, and after a button press on some.
 * Tags Hearth reads: 0x01 battery voltage (mV), 0x0B illuminance (lux, motion sensor), 0x64 the first
 * measured value (temperature × 100 on the weather sensor), 0x65 humidity × 100, 0x66 pressure (Pa).
 */
import { decodeValue, fixedSize } from '../zcl/types.ts';

export const XIAOMI_STRUCT_ATTR = 0xff01;

export const XiaomiTag = {
  VOLTAGE: 0x01,
  ILLUMINANCE: 0x0b,
  FIRST_VALUE: 0x64,
  HUMIDITY: 0x65,
  PRESSURE: 0x66,
} as const;

/** The struct's values by tag; stops at the first value of a type it cannot size (the rest is unknown). */
export function decodeXiaomiStruct(bytes: Buffer): Map<number, number | boolean | string> {
  const out = new Map<number, number | boolean | string>();
  let at = 0;
  while (at + 2 <= bytes.length) {
    const tag = bytes[at] as number;
    const type = bytes[at + 1] as number;
    if (fixedSize(type) === undefined && type !== 0x41 && type !== 0x42) break;
    try {
      const { value, size } = decodeValue(type, bytes, at + 2);
      out.set(tag, value);
      at += 2 + size;
    } catch {
      break;
    }
  }
  return out;
}

/** Builds a struct (the simulated devices send one). */
export function encodeXiaomiStruct(entries: Array<{ tag: number; type: number; bytes: Buffer }>): Buffer {
  return Buffer.concat(entries.map((e) => Buffer.concat([Buffer.of(e.tag, e.type), e.bytes])));
}
