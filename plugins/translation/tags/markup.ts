import type { EngineTranslation } from '../engines/types.ts';
import type { TagOptions } from '../request/types.ts';
import { type Segment, segmentMarkup } from './segment.ts';

/** A text prepared for an engine without tag support: its segments and what the engine must translate. */
export interface PreparedMarkup {
  source: string;
  segments: Segment[];
  /** Per segment: the trimmed sentence sent to the engine, or null when it holds nothing to translate. */
  cores: Array<string | null>;
  /** Entity references the parser left as text (`&nbsp;` in XML): written back as they were. */
  verbatim: ReadonlySet<string>;
}

const TRANSLATABLE = /[\p{L}\p{N}]/u;

export function prepareMarkup(source: string, opts: TagOptions): PreparedMarkup {
  const segments = segmentMarkup(source, opts);
  const cores = segments.map((runs) => {
    const joined = runs.map((r) => r.text).join('');
    return TRANSLATABLE.test(joined) ? joined.trim() : null;
  });
  return { source, segments, cores, verbatim: undecodedEntities(source, segments) };
}

const ENTITY = /&[A-Za-z][\w.-]*;/g;

/**
 * References the parser could not decode (XML knows only five named entities, so `&nbsp;` reaches the text
 * as it is written). Escaping them would turn `&nbsp;` into `&amp;nbsp;`, text the author did not write.
 * Per text: one that holds both `&nbsp;` and an escaped `&amp;nbsp;` gets both back as `&nbsp;`.
 */
function undecodedEntities(source: string, segments: Segment[]): Set<string> {
  const found = new Set<string>();
  for (const run of segments.flat()) {
    for (const [ref] of source.slice(run.start, run.end).matchAll(ENTITY)) {
      if (run.text.includes(ref)) found.add(ref);
    }
  }
  return found;
}

/** XML/HTML text escaping for translated character data; `keep` are references written back as they are. */
const escapeText = (text: string, keep: ReadonlySet<string>) =>
  text.replace(/&(?:[A-Za-z][\w.-]*;)?|[<>]/g, (m) =>
    m === '<' ? '&lt;' : m === '>' ? '&gt;' : keep.has(m) ? m : `&amp;${m.slice(1)}`,
  );

const leading = (s: string) => /^\s*/.exec(s)?.[0] ?? '';
const trailing = (s: string) => /\s*$/.exec(s)?.[0] ?? '';
const wordCount = (s: string) => s.split(/\s+/).filter((w) => TRANSLATABLE.test(w)).length;

/**
 * Spreads a sentence's translation back over its runs. One run takes it whole; several runs (a sentence
 * with inline tags) get the translated words in proportion to their source words, so every tag stays
 * where it was and in order, as DeepL re-positions tags around the words (docs/translation.md#tag-handling).
 */
function distribute(runs: Segment, translated: string): string[] {
  if (runs.length === 1) {
    const run = runs[0]!;
    return [leading(run.text) + translated + trailing(run.text)];
  }
  const words = translated.split(/\s+/).filter((w) => w !== '');
  const counts = runs.map((r) => wordCount(r.text));
  const total = counts.reduce((a, b) => a + b, 0) || 1;
  let before = 0;
  // Set after a run that ended in a translated word with no whitespace after it: the next word placed in a
  // later run is still a separate word of the translation, even where the source run boundary fell inside
  // a word (`<b>Wash</b>ing`) and so carries no whitespace of its own.
  let wordOpen = false;
  return runs.map((run, i) => {
    const from = Math.round((before / total) * words.length);
    before += counts[i] ?? 0;
    const to = i === runs.length - 1 ? words.length : Math.round((before / total) * words.length);
    const part = words.slice(from, to).join(' ');
    const text =
      part === ''
        ? run.text.trim() === ''
          ? run.text
          : leading(run.text) + trailing(run.text)
        : (wordOpen && leading(run.text) === '' ? ' ' : '') + leading(run.text) + part + trailing(run.text);
    if (part !== '') wordOpen = trailing(run.text) === '';
    else if (text !== '') wordOpen = false;
    return text;
  });
}

/** Re-inserts translations into the untouched markup; `translations` has one entry per non-null core. */
export function reassemble(prepared: PreparedMarkup, translations: string[]): string {
  const replacements: Array<{ start: number; end: number; text: string }> = [];
  let next = 0;
  prepared.segments.forEach((runs, i) => {
    if (prepared.cores[i] === null) return;
    const parts = distribute(runs, translations[next++] ?? '');
    runs.forEach((run, j) => {
      replacements.push({
        start: run.start,
        end: run.end,
        text: escapeText(parts[j] ?? '', prepared.verbatim),
      });
    });
  });
  let out = '';
  let at = 0;
  for (const r of replacements) {
    out += prepared.source.slice(at, r.start) + r.text;
    at = r.end;
  }
  return out + prepared.source.slice(at);
}

/**
 * Translates markup through a plain-text engine: every translatable segment of every text goes out in
 * one batch, and the answers are put back in place.
 */
export async function translateMarkup(
  prepared: PreparedMarkup[],
  translatePlain: (texts: string[]) => Promise<EngineTranslation[]>,
): Promise<EngineTranslation[]> {
  const batch = prepared.flatMap((p) => p.cores.filter((c): c is string => c !== null));
  const answers = batch.length > 0 ? await translatePlain(batch) : [];
  let next = 0;
  return prepared.map((p) => {
    const count = p.cores.filter((c) => c !== null).length;
    const mine = answers.slice(next, next + count);
    next += count;
    return {
      text: reassemble(
        p,
        mine.map((a) => a.text),
      ),
      detectedSource: mine[0]?.detectedSource ?? null,
    };
  });
}
