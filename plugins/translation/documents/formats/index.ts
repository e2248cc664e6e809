import type { PreparedDocument } from './collector.ts';
import { prepareJson, prepareYaml } from './data.ts';
import {
  prepareMarkdown,
  prepareProperties,
  prepareSrt,
  prepareStrings,
  prepareTxt,
  prepareVtt,
} from './lines.ts';
import { prepareHtml, prepareXliff, prepareXml } from './markup.ts';
import { prepareDocx, preparePptx, prepareXlsx } from './office.ts';

export interface LocalFormat {
  /** The canonical extension (`htm` → `html`). */
  name: string;
  contentType: string;
  prepare(input: Buffer, target: string): PreparedDocument;
}

const OOXML = 'application/vnd.openxmlformats-officedocument';

/** Formats Hearth translates itself, on any engine (docs/translation.md#documents). */
const LOCAL: LocalFormat[] = [
  { name: 'txt', contentType: 'text/plain; charset=utf-8', prepare: prepareTxt },
  { name: 'html', contentType: 'text/html; charset=utf-8', prepare: prepareHtml },
  { name: 'docx', contentType: `${OOXML}.wordprocessingml.document`, prepare: prepareDocx },
  { name: 'pptx', contentType: `${OOXML}.presentationml.presentation`, prepare: preparePptx },
  { name: 'xlsx', contentType: `${OOXML}.spreadsheetml.sheet`, prepare: prepareXlsx },
  { name: 'xliff', contentType: 'application/xliff+xml', prepare: prepareXliff },
  { name: 'srt', contentType: 'application/x-subrip', prepare: prepareSrt },
  { name: 'vtt', contentType: 'text/vtt', prepare: prepareVtt },
  { name: 'md', contentType: 'text/markdown; charset=utf-8', prepare: prepareMarkdown },
  { name: 'json', contentType: 'application/json', prepare: prepareJson },
  { name: 'yaml', contentType: 'application/yaml', prepare: prepareYaml },
  { name: 'properties', contentType: 'text/plain; charset=utf-8', prepare: prepareProperties },
  { name: 'strings', contentType: 'text/plain; charset=utf-8', prepare: prepareStrings },
  { name: 'xml', contentType: 'application/xml', prepare: prepareXml },
];

/** Other spellings of the same format. */
const ALIASES = new Map([
  ['htm', 'html'],
  ['xlf', 'xliff'],
  ['yml', 'yaml'],
  ['markdown', 'md'],
]);

/** Formats only a DeepL upstream translates (layout engines Hearth does not have). */
export const DEEPL_ONLY = new Set([
  'pdf',
  'jpeg',
  'jpg',
  'png',
  'idml',
  'dita',
  'mif',
  'zip',
  'odt',
  'rtf',
  'resx',
  'xlsm',
  'doc',
]);

/** The canonical name of an extension (lower-cased, aliases resolved). */
export const canonicalFormat = (ext: string): string => {
  const lower = ext.toLowerCase();
  return ALIASES.get(lower) ?? lower;
};

export function localFormat(ext: string): LocalFormat | undefined {
  const name = canonicalFormat(ext);
  return LOCAL.find((f) => f.name === name);
}

export const LOCAL_FORMATS = LOCAL.map((f) => f.name);
