import { Parser } from 'htmlparser2';
import { HttpError } from '../../../../core/sdk.ts';
import type { TagOptions } from '../../request/types.ts';
import { DocumentFormatError, fragmentOptions, MarkupCollector, type PreparedDocument } from './collector.ts';
import { decodeText } from './text.ts';

/** One whole markup file through the tag-handling segmenter; `what` names the format in errors. */
function markupDocument(input: Buffer, opts: TagOptions, what: string): PreparedDocument {
  const decoded = decodeText(input);
  const collector = new MarkupCollector();
  try {
    collector.add(decoded.text, opts);
  } catch (err) {
    if (err instanceof HttpError) throw new DocumentFormatError(`The file is not well-formed ${what}.`);
    throw err;
  }
  return {
    cores: collector.cores,
    finish: (translations) => decoded.encode(collector.results(translations)[0] ?? ''),
  };
}

/** HTML: as `tag_handling=html` (block elements split sentences; script, style, `translate="no"` stay). */
export const prepareHtml = (input: Buffer) =>
  markupDocument(
    input,
    {
      mode: 'html',
      version: 'v2',
      outlineDetection: true,
      splittingTags: [],
      nonSplittingTags: [],
      ignoreTags: [],
    },
    'HTML',
  );

/** XML: as `tag_handling=xml` v2 with outline detection (every element its own text; malformed XML refused). */
export const prepareXml = (input: Buffer) =>
  markupDocument(
    input,
    {
      mode: 'xml',
      version: 'v2',
      outlineDetection: true,
      splittingTags: [],
      nonSplittingTags: [],
      ignoreTags: [],
    },
    'XML',
  );

/** XLIFF inline codes whose content is native markup, never text (1.2 `bpt`/`ept`/`it`/`ph`). */
const XLIFF_CODES = ['bpt', 'ept', 'it', 'ph'];

interface XliffUnit {
  source: [number, number];
  /** The content range of an existing `<target>`, or the whole tag when it is empty (`<target/>`). */
  target: { start: number; end: number; selfClosing: boolean } | null;
  sourceEnd: number;
  skip: boolean;
}

/** BCP 47 for a DeepL code: `EN-GB` → `en-GB`, `ZH-HANS` → `zh-Hans`. */
export function bcp47(code: string): string {
  const [lang = '', region] = code.split('-');
  if (!region) return lang.toLowerCase();
  return `${lang.toLowerCase()}-${region.length === 4 ? region[0] + region.slice(1).toLowerCase() : region}`;
}

/**
 * XLIFF 1.2 and 2.x: each unit's (1.2 `trans-unit`, 2.x `segment`) source is translated into its target,
 * replacing a target that is there or adding one after the source; inline elements are kept; the file's
 * target language is set (1.2 `file/@target-language`, 2.x `xliff/@trgLang`).
 */
export function prepareXliff(input: Buffer, target: string): PreparedDocument {
  const decoded = decodeText(input);
  const text = decoded.text;
  const units: XliffUnit[] = [];
  const languageTags: Array<{ start: number; end: number; attr: string }> = [];
  let unit: XliffUnit | null = null;
  let sourceStart = -1;
  let targetStart = -1;
  let version = '';
  let sawRoot = false;
  let unitRefused = false; // 2.x: `translate="no"` on the unit covers its segments
  const local = (name: string) => name.slice(name.indexOf(':') + 1);
  const parser = new Parser(
    {
      onopentag(raw, attribs) {
        const name = local(raw);
        const tagEnd = parser.endIndex + 1;
        if (name === 'xliff') {
          sawRoot = true;
          version = attribs.version ?? '';
          if (!version.startsWith('1'))
            languageTags.push({ start: parser.startIndex, end: tagEnd, attr: 'trgLang' });
        } else if (name === 'file' && version.startsWith('1')) {
          languageTags.push({ start: parser.startIndex, end: tagEnd, attr: 'target-language' });
        } else if (name === 'unit') {
          unitRefused = attribs.translate === 'no';
        } else if (name === 'trans-unit' || (name === 'segment' && !version.startsWith('1'))) {
          const skip = attribs.translate === 'no' || (name === 'segment' && unitRefused);
          unit = { source: [0, 0], target: null, sourceEnd: 0, skip };
        } else if (unit && name === 'source') sourceStart = tagEnd;
        else if (unit && name === 'target') {
          const selfClosing = text.slice(parser.startIndex, tagEnd).endsWith('/>');
          if (selfClosing) unit.target = { start: parser.startIndex, end: tagEnd, selfClosing };
          else targetStart = tagEnd;
        }
      },
      onclosetag(raw) {
        const name = local(raw);
        if (!unit) return;
        if (name === 'source' && sourceStart >= 0) {
          unit.source = [sourceStart, parser.startIndex];
          unit.sourceEnd = parser.endIndex + 1;
          sourceStart = -1;
        } else if (name === 'target' && targetStart >= 0) {
          unit.target = { start: targetStart, end: parser.startIndex, selfClosing: false };
          targetStart = -1;
        } else if (name === 'trans-unit' || name === 'segment') {
          if (unit.sourceEnd > 0) units.push(unit);
          unit = null;
        }
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.end(text);
  if (!sawRoot) throw new DocumentFormatError('The file is not XLIFF (no <xliff> root element).');
  const collector = new MarkupCollector();
  const handles = units.map((u) =>
    u.skip ? -1 : collector.add(text.slice(u.source[0], u.source[1]), fragmentOptions([], XLIFF_CODES)),
  );
  return {
    cores: collector.cores,
    finish(translations) {
      const results = collector.results(translations);
      const edits: Array<{ start: number; end: number; text: string }> = [];
      const lang = bcp47(target);
      for (const tag of languageTags) {
        const open = text.slice(tag.start, tag.end);
        const attr = new RegExp(`(\\s${tag.attr}\\s*=\\s*)(["'])[^"']*\\2`);
        const changed = attr.test(open)
          ? open.replace(attr, `$1"${lang}"`)
          : open.replace(/\s*(\/?>)$/, ` ${tag.attr}="${lang}"$1`);
        edits.push({ start: tag.start, end: tag.end, text: changed });
      }
      units.forEach((u, i) => {
        const handle = handles[i] ?? -1;
        if (handle < 0) return;
        const translated = results[handle] ?? '';
        if (u.target?.selfClosing) edits.push({ ...u.target, text: `<target>${translated}</target>` });
        else if (u.target) edits.push({ start: u.target.start, end: u.target.end, text: translated });
        else edits.push({ start: u.sourceEnd, end: u.sourceEnd, text: `<target>${translated}</target>` });
      });
      edits.sort((a, b) => a.start - b.start);
      let out = '';
      let at = 0;
      for (const e of edits) {
        out += text.slice(at, e.start) + e.text;
        at = e.end;
      }
      return decoded.encode(out + text.slice(at));
    },
  };
}
