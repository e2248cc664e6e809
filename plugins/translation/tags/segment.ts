import { Parser } from 'htmlparser2';
import { invalid } from '../errors.ts';
import type { TagOptions } from '../request/types.ts';

/** A stretch of character data in the markup: `[start, end)` in the source, `text` decoded. */
export interface Run {
  start: number;
  end: number;
  text: string;
}

/** Runs translated together as one sentence-level unit (joined across non-splitting tags). */
export type Segment = Run[];

/** HTML elements that sit inside a sentence (phrasing content); every other element splits. */
const HTML_INLINE = new Set(
  'a abbr b bdi bdo cite code data dfn em font i kbd mark q s samp small span strong sub sup time u var'.split(
    ' ',
  ),
);
/** HTML elements whose content is never text to translate. */
const HTML_OPAQUE = new Set(['script', 'style', 'noscript', 'template', 'textarea']);

interface OpenElement {
  name: string;
  skip: boolean;
  splits: boolean;
}

/**
 * Splits markup into segments with a real parser (htmlparser2), honouring `ignore_tags`, `translate="no"`,
 * `class="notranslate"` (HTML), `splitting_tags`, `non_splitting_tags` and `outline_detection` (docs/translation.md#tag-handling). Markup itself is
 * never touched: only run ranges are recorded. With `tag_handling_version=v2` and XML, malformed markup is
 * refused, as DeepL's v2 does (docs/translation.md#tag-handling).
 */
export function segmentMarkup(markup: string, opts: TagOptions): Segment[] {
  const xml = opts.mode === 'xml';
  const strict = xml && opts.version === 'v2';
  // HTML tag names are case-insensitive and htmlparser2 reports them lower-cased; XML names are exact.
  const names = (list: string[]) => new Set(xml ? list : list.map((n) => n.toLowerCase()));
  const ignore = names(opts.ignoreTags);
  const splitting = names(opts.splittingTags);
  const nonSplitting = names(opts.nonSplittingTags);
  const segments: Segment[] = [];
  const stack: OpenElement[] = [];
  let current: Segment = [];
  let inCdata = false;
  let covered = 0; // end of the source range accounted for by events (strict mode finds dropped markup)
  let malformed = false;

  const boundary = () => {
    if (current.length > 0) segments.push(current);
    current = [];
  };
  // DeepL XML handling: outline detection makes every element split; with `outline_detection=0` only
  // `splitting_tags` do (docs/translation.md#tag-handling). HTML splits at block elements whatever the flag says.
  const splits = (name: string) =>
    splitting.has(name)
      ? true
      : nonSplitting.has(name)
        ? false
        : xml
          ? opts.outlineDetection
          : !HTML_INLINE.has(name);
  const cover = (start: number, end: number) => {
    if (start > covered && markup.slice(covered, start).trim() !== '') malformed = true;
    covered = Math.max(covered, end);
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        cover(parser.startIndex, parser.endIndex + 1);
        const parentSkip = stack.at(-1)?.skip ?? false;
        const notranslate =
          attribs.translate === 'no' || (!xml && (attribs.class ?? '').split(/\s+/).includes('notranslate'));
        const skip = parentSkip || ignore.has(name) || notranslate || (!xml && HTML_OPAQUE.has(name));
        const element = { name, skip, splits: splits(name) || skip !== parentSkip };
        stack.push(element);
        if (element.splits) boundary();
      },
      onclosetag(name, isImplied) {
        const raw = markup.slice(parser.startIndex, parser.endIndex + 1);
        const explicit = raw.startsWith('</');
        if (strict && isImplied && !(raw.endsWith('/>') && !explicit)) malformed = true;
        if (explicit) cover(parser.startIndex, parser.endIndex + 1);
        const element = stack.pop();
        if (!element || element.name !== name) malformed = true;
        if (element?.splits) boundary();
      },
      ontext(text) {
        cover(parser.startIndex, parser.endIndex + 1);
        if (inCdata || stack.at(-1)?.skip) return;
        const last = current.at(-1);
        if (last && last.end === parser.startIndex) {
          last.end = parser.endIndex + 1;
          last.text += text;
        } else {
          current.push({ start: parser.startIndex, end: parser.endIndex + 1, text });
        }
      },
      oncomment() {
        cover(parser.startIndex, parser.endIndex + 1);
        boundary();
      },
      onprocessinginstruction() {
        cover(parser.startIndex, parser.endIndex + 1);
        boundary();
      },
      oncdatastart() {
        cover(parser.startIndex, parser.endIndex + 1);
        inCdata = true;
        boundary();
      },
      oncdataend() {
        inCdata = false;
      },
    },
    { xmlMode: xml, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.end(markup);
  if (covered < markup.length && markup.slice(covered).trim() !== '') malformed = true;
  if (strict && malformed) {
    throw invalid(
      "Parameter 'text' contains invalid XML (tag_handling_version v2 requires well-formed XML).",
    );
  }
  boundary();
  return segments;
}
