/** Profile-wide commands: read attributes, their answer, configure reporting, attribute reports. */
import { type AttrValue, DataType, decodeValue, encodeValue } from './types.ts';

export interface AttrRecord {
  attr: number;
  type: number;
  value: AttrValue;
  /** A string's bytes as sent (decoded records only). */
  raw?: Buffer;
}

/** `read attributes`: a list of attribute ids (ZCL r7 §2.5.1). */
export function encodeRead(attrs: number[]): Buffer {
  const b = Buffer.alloc(attrs.length * 2);
  for (const [i, a] of attrs.entries()) b.writeUInt16LE(a, i * 2);
  return b;
}

export function decodeRead(p: Buffer): number[] {
  const out: number[] = [];
  for (let at = 0; at + 1 < p.length; at += 2) out.push(p.readUInt16LE(at));
  return out;
}

/** `read attributes response`: `{attr, status, [type, value]}…`; unsupported attributes are left out. */
export function decodeReadRsp(p: Buffer): AttrRecord[] {
  const out: AttrRecord[] = [];
  let at = 0;
  while (at + 3 <= p.length) {
    const attr = p.readUInt16LE(at);
    const status = p[at + 2] as number;
    at += 3;
    if (status !== 0) continue;
    const type = p[at] as number;
    const { value, size, raw } = decodeValue(type, p, at + 1);
    out.push(raw ? { attr, type, value, raw } : { attr, type, value });
    at += 1 + size;
  }
  return out;
}

export function encodeReadRsp(records: Array<AttrRecord | { attr: number; status: number }>): Buffer {
  return Buffer.concat(
    records.map((r) => {
      const head = Buffer.alloc(3);
      head.writeUInt16LE(r.attr);
      if ('status' in r) {
        head[2] = r.status;
        return head;
      }
      return Buffer.concat([head, Buffer.of(r.type), encodeValue(r.type, r.value)]);
    }),
  );
}

/** `report attributes`: `{attr, type, value}…` (ZCL r7 §2.5.11). */
export function encodeReport(records: AttrRecord[]): Buffer {
  return Buffer.concat(
    records.map((r) => {
      const head = Buffer.alloc(3);
      head.writeUInt16LE(r.attr);
      head[2] = r.type;
      return Buffer.concat([head, encodeValue(r.type, r.value)]);
    }),
  );
}

export function decodeReport(p: Buffer): AttrRecord[] {
  const out: AttrRecord[] = [];
  let at = 0;
  while (at + 3 <= p.length) {
    const attr = p.readUInt16LE(at);
    const type = p[at + 2] as number;
    const { value, size, raw } = decodeValue(type, p, at + 3);
    out.push(raw ? { attr, type, value, raw } : { attr, type, value });
    at += 3 + size;
  }
  return out;
}

/** `write attributes`: `{attr, type, value}…` (ZCL r7 §2.5.3), the same layout as a report. */
export const encodeWrite = (records: AttrRecord[]): Buffer => encodeReport(records);
export const decodeWrite = (p: Buffer): AttrRecord[] => decodeReport(p);

/** `write attributes response`: one status 0x00 when all succeeded, else `{status, attr}` per failure. */
export function writeSucceeded(p: Buffer): boolean {
  return p.length === 1 && p[0] === 0;
}

export interface ReportingConfig {
  attr: number;
  type: number;
  minSeconds: number;
  maxSeconds: number;
  /** Reportable change, for analogue types only. */
  change?: number;
}

const ANALOGUE = new Set<number>([
  DataType.UINT8,
  DataType.UINT16,
  DataType.UINT32,
  DataType.INT8,
  DataType.INT16,
]);

/** `configure reporting`, direction 0 (the device reports) (ZCL r7 §2.5.7). */
export function encodeConfigureReporting(configs: ReportingConfig[]): Buffer {
  return Buffer.concat(
    configs.map((c) => {
      const b = Buffer.alloc(8);
      b[0] = 0;
      b.writeUInt16LE(c.attr, 1);
      b[3] = c.type;
      b.writeUInt16LE(c.minSeconds, 4);
      b.writeUInt16LE(c.maxSeconds, 6);
      return ANALOGUE.has(c.type) ? Buffer.concat([b, encodeValue(c.type, c.change ?? 1)]) : b;
    }),
  );
}

export function decodeConfigureReporting(p: Buffer): ReportingConfig[] {
  const out: ReportingConfig[] = [];
  let at = 0;
  while (at + 8 <= p.length) {
    const type = p[at + 3] as number;
    const c: ReportingConfig = {
      attr: p.readUInt16LE(at + 1),
      type,
      minSeconds: p.readUInt16LE(at + 4),
      maxSeconds: p.readUInt16LE(at + 6),
    };
    at += 8;
    if (ANALOGUE.has(type)) {
      const { value, size } = decodeValue(type, p, at);
      c.change = Number(value);
      at += size;
    }
    out.push(c);
  }
  return out;
}
