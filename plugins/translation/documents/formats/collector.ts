import type { TagOptions } from '../../request/types.ts';
import { type PreparedMarkup, prepareMarkup, reassemble } from '../../tags/markup.ts';

/** What a format hands the job: the sentences to translate, and how to write the file from their translations. */
export interface PreparedDocument {
  /** Plain-text sentences, in document order (what is translated and billed). */
  cores: string[];
  /** Builds the translated file; `translations[i]` answers `cores[i]`. */
  finish(translations: string[]): Buffer;
}

/** Parses a file of one format; throws `DocumentFormatError` when the file is not of that format. */
export type PrepareDocument = (input: Buffer) => PreparedDocument;

/** The file is damaged or not of the format its name says (a 400 at upload). */
export class DocumentFormatError extends Error {}

/** Tag options for markup made by the formats themselves: one sentence per fragment, split only where told. */
export const fragmentOptions = (splittingTags: string[] = [], ignoreTags: string[] = []): TagOptions => ({
  mode: 'xml',
  version: 'v1',
  outlineDetection: false,
  splittingTags,
  nonSplittingTags: [],
  ignoreTags,
});

/**
 * Collects the markup of a document (whole files or small fragments), segmented by the same code that
 * serves `tag_handling` on engines without tag support (tags/): the sentences go out as plain text and the
 * translations are spread back over their runs, so every tag stays where it was.
 */
export class MarkupCollector {
  private readonly items: PreparedMarkup[] = [];

  /** Adds markup; returns its handle for `results`. */
  add(markup: string, opts: TagOptions): number {
    return this.addPrepared(prepareMarkup(markup, opts));
  }

  addPrepared(prepared: PreparedMarkup): number {
    this.items.push(prepared);
    return this.items.length - 1;
  }

  get cores(): string[] {
    return this.items.flatMap((p) => p.cores.filter((c): c is string => c !== null));
  }

  /** The translated markup of every item, in the order they were added. */
  results(translations: string[]): string[] {
    let next = 0;
    return this.items.map((p) => {
      const count = p.cores.filter((c) => c !== null).length;
      const mine = translations.slice(next, next + count);
      next += count;
      return count === 0 ? p.source : reassemble(p, mine);
    });
  }
}

const ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };
export const escapeXml = (text: string) => text.replace(/[<>&]/g, (c) => ESCAPES[c] ?? c);
const UNESCAPES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
export const unescapeXml = (text: string) =>
  text.replace(/&(lt|gt|amp|quot|apos);/g, (m, name: string) => UNESCAPES[name] ?? m);

/**
 * A line of a text format as markup: the spans `keep` matches (placeholders, inline code, link targets,
 * subtitle tags) become empty elements the translation keeps in place; spans `split` matches (table cell
 * borders) also end a sentence. `restore` turns the translated markup back into the line.
 */
export function protectSpans(
  text: string,
  keep: RegExp | null,
  split: RegExp | null = null,
): { markup: string; restore(translated: string): string } {
  const spans: string[] = [];
  const pattern = new RegExp(
    // Both alternatives always capture, so group 1 is a split and group 2 a kept span.
    [split ? `(${split.source})` : '((?!))', keep ? `(${keep.source})` : '((?!))'].join('|'),
    'gu',
  );
  let markup = '';
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m[0] === '') continue;
    markup += escapeXml(text.slice(at, m.index));
    spans.push(m[0]);
    markup += m[1] !== undefined ? `<s i="${spans.length - 1}"/>` : `<k i="${spans.length - 1}"/>`;
    at = m.index + m[0].length;
  }
  markup += escapeXml(text.slice(at));
  return {
    markup,
    restore: (translated) =>
      unescapeXml(translated.replace(/<[sk] i="(\d+)"\/>/g, (_m, i: string) => spans[Number(i)] ?? '')),
  };
}

/** Options for `protectSpans` markup: `<s/>` ends a sentence, `<k/>` sits inside one. */
export const SPAN_OPTIONS = fragmentOptions(['s']);
