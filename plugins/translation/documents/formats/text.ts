import { DocumentFormatError } from './collector.ts';

/** A text file's characters and how to write them back in the same encoding (and byte-order mark). */
export interface DecodedText {
  text: string;
  encode(text: string): Buffer;
  /** Decoded as UTF-8 (false: Latin-1, the traditional encoding of `.properties`). */
  utf8: boolean;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Decodes UTF-8 (with or without BOM) or UTF-16 with a BOM. Bytes that are not valid UTF-8 are a damaged
 * or binary file (400), unless `latin1` allows the fallback.
 */
export function decodeText(input: Buffer, opts: { latin1?: boolean } = {}): DecodedText {
  if (input[0] === 0xff && input[1] === 0xfe) {
    return {
      text: input.subarray(2).toString('utf16le'),
      encode: (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]),
      utf8: true,
    };
  }
  if (input[0] === 0xfe && input[1] === 0xff) {
    const swapped = Buffer.from(input.subarray(2)).swap16();
    return {
      text: swapped.toString('utf16le'),
      encode: (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]),
      utf8: true,
    };
  }
  const bom = input.subarray(0, 3).equals(UTF8_BOM);
  const body = bom ? input.subarray(3) : input;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    if (text.includes('\u0000')) throw new DocumentFormatError('The file is binary, not text.');
    return {
      text,
      encode: (t) => (bom ? Buffer.concat([UTF8_BOM, Buffer.from(t, 'utf8')]) : Buffer.from(t, 'utf8')),
      utf8: true,
    };
  } catch (err) {
    if (err instanceof DocumentFormatError) throw err;
    if (!opts.latin1) throw new DocumentFormatError('The file is not valid UTF-8 text.');
    return { text: body.toString('latin1'), encode: (t) => Buffer.from(t, 'latin1'), utf8: false };
  }
}

/** Lines with their line ends, so a file is written back with the same `\n` or `\r\n`. */
export function splitLines(text: string): Array<{ line: string; end: string }> {
  const parts = text.split(/(\r?\n)/);
  const out: Array<{ line: string; end: string }> = [];
  for (let i = 0; i < parts.length; i += 2) out.push({ line: parts[i] ?? '', end: parts[i + 1] ?? '' });
  return out;
}
