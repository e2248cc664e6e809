import { MarkupCollector, type PreparedDocument, protectSpans, SPAN_OPTIONS } from './collector.ts';
import { decodeText, splitLines } from './text.ts';

/** How one line is translated: its markup (see `protectSpans`) and how to write the translated line. */
interface LinePlan {
  markup: string;
  /** The translated line; null drops the line and its line end (a continuation folded into the line before). */
  restore(translated: string): string | null;
}

/**
 * A line-oriented text file: `plan` says for each line whether (and how) it is translated; every other
 * line, and every line end, is written back as it was.
 */
function lineDocument(
  input: Buffer,
  plan: (line: string, index: number, lines: string[]) => LinePlan | null,
  opts: { latin1?: boolean } = {},
): PreparedDocument {
  const decoded = decodeText(input, opts);
  const lines = splitLines(decoded.text);
  const plain = lines.map((l) => l.line);
  const collector = new MarkupCollector();
  const plans = lines.map(({ line }, i) => {
    const p = plan(line, i, plain);
    return p ? { ...p, handle: collector.add(p.markup, SPAN_OPTIONS) } : null;
  });
  return {
    cores: collector.cores,
    finish(translations) {
      const results = collector.results(translations);
      const out = lines
        .map(({ line, end }, i) => {
          const p = plans[i];
          if (!p) return line + end;
          const restored = p.restore(results[p.handle] ?? '');
          return restored === null ? '' : restored + end;
        })
        .join('');
      return decoded.encode(out);
    },
  };
}

/** Plain text: every line is translated on its own; blank lines and indentation stay. */
export const prepareTxt = (input: Buffer) => lineDocument(input, (line) => protectSpans(line, null));

const TIMING = /-->/;
/** Subtitle markup inside cue text: HTML-like tags (`<i>`, `<v Name>`) and ASS overrides (`{\an8}`). */
const CUE_TAGS = /<[^>]*>|\{\\[^}]*\}/;

/** SubRip and WebVTT: cue text lines (after a timing line, up to a blank line); numbers, timings, headers and NOTE/STYLE blocks stay. */
function prepareSubtitles(input: Buffer): PreparedDocument {
  let inCue = false;
  return lineDocument(input, (line) => {
    if (line.trim() === '') {
      inCue = false;
      return null;
    }
    if (TIMING.test(line)) {
      inCue = true;
      return null;
    }
    return inCue ? protectSpans(line, CUE_TAGS) : null;
  });
}
export const prepareSrt = prepareSubtitles;
export const prepareVtt = prepareSubtitles;

/** Markdown syntax at the start of a line: headings, quotes, list markers, task boxes. */
const MD_PREFIX = /^\s*(?:(?:#{1,6}|>|[-*+]|\d{1,9}[.)])[ \t]+)*(?:\[[ xX]\][ \t]+)?/;
/** Inline syntax kept as it is: code spans, link targets, autolinks, HTML tags, emphasis markers, link brackets. */
const MD_KEEP =
  /`[^`]*`|\]\([^)]*\)|\]\[[^\]]*\]|<[a-zA-Z][^>]*>|<\/[a-zA-Z][^>]*>|<https?:[^>]*>|!?\[|\*\*|__|~~/;

/**
 * Markdown: text lines are translated with their inline syntax kept; front matter, fenced and indented
 * code, link reference definitions and HTML comments stay; table cells are translated one by one.
 */
export function prepareMarkdown(input: Buffer): PreparedDocument {
  let fence: string | null = null;
  let frontMatter = false;
  let previousBlank = true;
  let inComment = false;
  return lineDocument(input, (line, index) => {
    const blank = line.trim() === '';
    const wasBlank = previousBlank;
    previousBlank = blank;
    if (index === 0 && line.trim() === '---') {
      frontMatter = true;
      return null;
    }
    if (frontMatter) {
      if (line.trim() === '---' || line.trim() === '...') frontMatter = false;
      return null;
    }
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (marker?.startsWith(fence)) fence = null;
      return null;
    }
    if (marker) {
      fence = marker;
      return null;
    }
    if (inComment || /^\s*<!--/.test(line)) {
      inComment = !line.includes('-->');
      return null;
    }
    if (blank || (wasBlank && /^( {4}|\t)/.test(line))) return null;
    if (/^\s*\[[^\]]+\]:\s*\S/.test(line)) return null; // a link reference definition
    const prefix = MD_PREFIX.exec(line)?.[0] ?? '';
    const rest = protectSpans(line.slice(prefix.length), MD_KEEP, /\|/);
    return { markup: rest.markup, restore: (t) => prefix + rest.restore(t) };
  });
}

/** `{0}`, `{name}` and printf placeholders in message files. */
const MESSAGE_PLACEHOLDERS =
  /\{[^{}\s]*\}|%(?:\d+\$)?[-+ 0#]*\d*(?:\.\d+)?(?:ll|l|h)?[@dDiuUxXoOfeEgGcCsSpaA%]/;

/** Java `.properties`: values are translated, keys, comments and separators stay (RFC-less: java.util.Properties#load). */
export function prepareProperties(input: Buffer): PreparedDocument {
  const decoded = decodeText(input, { latin1: true });
  // Files that escape everything beyond ASCII (the ISO-8859-1 tradition) are written back the same way.
  const escapeNonAscii = !decoded.utf8 || !/\P{ASCII}/u.test(decoded.text);
  let continued = false;
  return lineDocument(
    input,
    (line, index, lines) => {
      const wasContinued = continued;
      continued = /(?:^|[^\\])(?:\\\\)*\\$/.test(line);
      if (wasContinued) return { markup: '', restore: () => null }; // folded into the line before
      if (/^\s*([#!]|$)/.test(line)) return null;
      let logical = line;
      for (let i = index + 1; continued && i < lines.length; i++) {
        logical = logical.slice(0, -1) + (lines[i] ?? '').replace(/^\s+/, '');
        if (!/(?:^|[^\\])(?:\\\\)*\\$/.test(lines[i] ?? '')) break;
      }
      const head = /^\s*(?:\\.|[^\\=:\s])*\s*[=:]?\s*/.exec(logical)?.[0] ?? '';
      const value = unescapeProperty(logical.slice(head.length));
      const spans = protectSpans(value, MESSAGE_PLACEHOLDERS);
      return {
        markup: spans.markup,
        restore: (t) => head + escapeProperty(spans.restore(t), escapeNonAscii),
      };
    },
    { latin1: true },
  );
}

const PROPERTY_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescapeProperty(raw: string): string {
  return raw.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) =>
    e.length === 5 ? String.fromCharCode(Number.parseInt(e.slice(1), 16)) : (PROPERTY_ESCAPES[e] ?? e),
  );
}

function escapeProperty(value: string, nonAscii: boolean): string {
  let out = value
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/^ /, '\\ ');
  if (nonAscii) {
    out = out.replace(/\P{ASCII}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  return out;
}

const STRINGS_ENTRY = /^(\s*"(?:[^"\\]|\\.)*"\s*=\s*")((?:[^"\\]|\\.)*)("\s*;.*)$/;

/** Apple `.strings`: `"key" = "value";` values are translated; keys and comments stay (UTF-8 or UTF-16). */
export function prepareStrings(input: Buffer): PreparedDocument {
  let inComment = false;
  return lineDocument(input, (line) => {
    if (inComment) {
      inComment = !line.includes('*/');
      return null;
    }
    const m = STRINGS_ENTRY.exec(line);
    if (!m) {
      if (line.includes('/*') && !line.includes('*/')) inComment = true;
      return null;
    }
    const [, head = '', raw = '', tail = ''] = m;
    const value = raw.replace(/\\(.)/g, (_e, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
    const spans = protectSpans(value, MESSAGE_PLACEHOLDERS);
    const escapeValue = (s: string) =>
      s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
    return { markup: spans.markup, restore: (t) => head + escapeValue(spans.restore(t)) + tail };
  });
}
