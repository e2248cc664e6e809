import { strFromU8, strToU8, type Unzipped, unzipSync, zipSync } from 'fflate';
import { Parser } from 'htmlparser2';
import type { PreparedMarkup } from '../../tags/markup.ts';
import type { Run, Segment } from '../../tags/segment.ts';
import { DocumentFormatError, MarkupCollector, type PreparedDocument } from './collector.ts';

/** The most an archive may unpack to (a small zip can hold gigabytes of zeros). */
export const MAX_UNPACKED_BYTES = 128 * 1024 * 1024;
const LETTER = /\p{L}/u;

/** Where an Office format keeps its text: the parts, the text element and the paragraph element (ECMA-376). */
interface OfficeLayout {
  /** A part that must exist (the file is not of this format otherwise). */
  required: string;
  parts: RegExp;
  text: string;
  paragraphs: string[];
  /** Elements whose text is never translated (phonetic guides, field codes, deleted text). */
  ignore: string[];
}

const DOCX: OfficeLayout = {
  required: 'word/document.xml',
  parts: /^word\/(document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/,
  text: 'w:t',
  paragraphs: ['w:p'],
  ignore: ['w:instrText', 'w:delText'],
};
const PPTX: OfficeLayout = {
  required: 'ppt/presentation.xml',
  parts: /^ppt\/(slides\/slide\d+|notesSlides\/notesSlide\d+)\.xml$/,
  text: 'a:t',
  paragraphs: ['a:p'],
  ignore: [],
};
const XLSX: OfficeLayout = {
  required: 'xl/workbook.xml',
  parts: /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/,
  text: 't',
  paragraphs: ['si', 'is'],
  ignore: ['rPh'],
};

/**
 * The text of one Office XML part as segments: one per paragraph (`w:p`, `a:p`, a shared string), made of
 * the runs of its text elements. Formatting runs stay; the paragraph's translation is spread over them.
 * Nested paragraphs (a text box inside a paragraph) are segments of their own.
 */
export function officeSegments(xml: string, layout: OfficeLayout): PreparedMarkup {
  const segments: Segment[] = [];
  const open: Segment[] = [];
  let inText = 0;
  let ignored = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (layout.paragraphs.includes(name)) open.push([]);
        else if (name === layout.text) inText++;
        else if (layout.ignore.includes(name)) ignored++;
      },
      onclosetag(name) {
        if (layout.paragraphs.includes(name)) {
          const done = open.pop();
          if (done && done.length > 0) segments.push(done);
        } else if (name === layout.text) inText--;
        else if (layout.ignore.includes(name)) ignored--;
      },
      ontext(text) {
        const paragraph = open.at(-1);
        if (inText <= 0 || ignored > 0 || !paragraph) return;
        const last: Run | undefined = paragraph.at(-1);
        if (last && last.end === parser.startIndex) {
          last.end = parser.endIndex + 1;
          last.text += text;
        } else paragraph.push({ start: parser.startIndex, end: parser.endIndex + 1, text });
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.end(xml);
  const cores = segments.map((runs) => {
    const joined = runs.map((r) => r.text).join('');
    return LETTER.test(joined) ? joined.trim() : null;
  });
  return { source: xml, segments, cores, verbatim: new Set() };
}

function unzip(input: Buffer): Unzipped {
  let total = 0;
  try {
    return unzipSync(new Uint8Array(input.buffer, input.byteOffset, input.byteLength), {
      filter(file) {
        total += file.originalSize;
        if (total > MAX_UNPACKED_BYTES) {
          throw new DocumentFormatError(
            `The archive unpacks to more than ${MAX_UNPACKED_BYTES / 1048576} MiB.`,
          );
        }
        return true;
      },
    });
  } catch (err) {
    if (err instanceof DocumentFormatError) throw err;
    throw new DocumentFormatError('The file is not a valid zip archive (Office Open XML).');
  }
}

function prepareOffice(input: Buffer, layout: OfficeLayout): PreparedDocument {
  const files = unzip(input);
  if (!files[layout.required]) {
    throw new DocumentFormatError(`The archive has no ${layout.required}; it is not this document type.`);
  }
  const collector = new MarkupCollector();
  const parts: Array<{ name: string; handle: number }> = [];
  for (const name of Object.keys(files).sort()) {
    if (!layout.parts.test(name)) continue;
    const data = files[name] as Uint8Array;
    let xml: string;
    try {
      xml = new TextDecoder('utf-8', { fatal: true }).decode(data);
    } catch {
      throw new DocumentFormatError(`${name} in the archive is not UTF-8 XML.`);
    }
    parts.push({ name, handle: collector.addPrepared(officeSegments(xml, layout)) });
  }
  return {
    cores: collector.cores,
    finish(translations) {
      const results = collector.results(translations);
      for (const part of parts) files[part.name] = strToU8(results[part.handle] ?? '');
      const zipped = zipSync(files, { level: 6 });
      return Buffer.from(zipped.buffer, zipped.byteOffset, zipped.byteLength);
    },
  };
}

export const prepareDocx = (input: Buffer) => prepareOffice(input, DOCX);
export const preparePptx = (input: Buffer) => prepareOffice(input, PPTX);
export const prepareXlsx = (input: Buffer) => prepareOffice(input, XLSX);

/** For tests and the benchmark: the text of a part of an archive. */
export const partText = (archive: Uint8Array, name: string): string => {
  const files = unzipSync(archive, { filter: (f) => f.name === name });
  const data = files[name];
  return data ? strFromU8(data) : '';
};
