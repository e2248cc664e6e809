import type { EngineResult, EngineTranslation } from '../engines/types.ts';
import { UpstreamError } from '../engines/types.ts';
import { TermFinder } from './term-finder.ts';

/**
 * Glossaries on engines without them (docs/translation.md#glossaries-on-every-engine). Terms are matched
 * as whole words, case-insensitively, longest first. Two ways to make the engine keep a term:
 * placeholders (the term becomes an empty element the engine must carry through, LibreTranslate's HTML
 * mode keeps elements) or prompt constraints (an LLM is told the pairs). Either way the answer is
 * checked: a placeholder lost or a target term missing fails the attempt (the chain fails over), so a
 * glossary is never silently ignored.
 */

export type Terms = ReadonlyArray<readonly [string, string]>;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Entries grouped by lower-cased source term, with the automaton that finds those terms. */
interface TermIndex {
  finder: TermFinder;
  /** The entry indexes of each distinct lower-cased source term (the finder's term numbers). */
  entriesOf: number[][];
}

/** Built once per entries array (a merged glossary is itself kept, so its index lives as long as it does). */
const indexes = new WeakMap<Terms, TermIndex>();

function indexOf(entries: Terms): TermIndex {
  let index = indexes.get(entries);
  if (!index) {
    const numbers = new Map<string, number>();
    const entriesOf: number[][] = [];
    entries.forEach(([s], i) => {
      const l = s.toLowerCase();
      let n = numbers.get(l);
      if (n === undefined) {
        n = entriesOf.length;
        numbers.set(l, n);
        entriesOf.push([]);
      }
      (entriesOf[n] as number[]).push(i);
    });
    index = { finder: new TermFinder([...numbers.keys()]), entriesOf };
    indexes.set(entries, index);
  }
  return index;
}

/**
 * The entries whose source term occurs in one of the texts (case-insensitively, as a substring; whole
 * words are the pattern's job), as one alternation, longest term first. One pass per text, however many
 * entries the glossary has.
 */
export function termsIn(texts: string[], entries: Terms): { terms: Terms; pattern: RegExp | null } {
  const { finder, entriesOf } = indexOf(entries);
  const found = new Uint8Array(entriesOf.length);
  for (const text of texts) finder.scan(text.toLowerCase(), found);
  const matched: number[] = [];
  found.forEach((hit, n) => {
    if (hit) matched.push(...(entriesOf[n] as number[]));
  });
  // Entries in glossary order, then longest first (a stable sort keeps that order among equal lengths).
  const terms = matched
    .sort((a, b) => a - b)
    .map((i) => entries[i] as readonly [string, string])
    .sort((a, b) => b[0].length - a[0].length);
  if (terms.length === 0) return { terms, pattern: null };
  const alternation = terms.map(([s]) => escapeRegExp(s)).join('|');
  // Whole words: no letter or digit may touch the term on either side.
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternation})(?![\\p{L}\\p{N}])`, 'giu');
  return { terms, pattern };
}

/** The target term for a matched source text (case-insensitive lookup). */
function targetFor(terms: Terms, matched: string): string {
  const l = matched.toLowerCase();
  return terms.find(([s]) => s.toLowerCase() === l)?.[1] ?? matched;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|#39);/gi, (_m, e: string) => {
    const l = e.toLowerCase();
    if (l.startsWith('#x')) return String.fromCodePoint(Number.parseInt(l.slice(2), 16));
    if (l.startsWith('#')) return String.fromCodePoint(Number(l.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[l] ?? "'";
  });
}

const PLACEHOLDER = /<g id="(\d+)"\s*(?:\/>|><\/g>)/g;

/**
 * Placeholder protection: each term occurrence becomes `<g id="N"></g>` in an HTML-escaped text; after
 * translation every placeholder must come back exactly once and is replaced by the glossary's target term.
 */
export async function withPlaceholders(
  texts: string[],
  entries: Terms,
  translate: (texts: string[], html: boolean) => Promise<EngineResult>,
): Promise<EngineResult> {
  const { terms, pattern } = termsIn(texts, entries);
  if (!pattern) return translate(texts, false);
  const targets: string[][] = [];
  const marked = texts.map((text) => {
    const mine: string[] = [];
    targets.push(mine);
    let out = '';
    let last = 0;
    for (const m of text.matchAll(pattern)) {
      out += `${escapeHtml(text.slice(last, m.index))}<g id="${mine.length}"></g>`;
      mine.push(targetFor(terms, m[0]));
      last = m.index + m[0].length;
    }
    return out + escapeHtml(text.slice(last));
  });
  const result = await translate(marked, true);
  const translations: EngineTranslation[] = result.translations.map((t, i) => {
    const mine = targets[i] ?? [];
    const seen = new Set<number>();
    const restored = t.text.split(PLACEHOLDER);
    // split with one capture group: text, id, text, id, …
    let text = '';
    restored.forEach((part, j) => {
      if (j % 2 === 0) text += unescapeHtml(part);
      else {
        const n = Number(part);
        if (seen.has(n) || mine[n] === undefined) throw lost(mine);
        seen.add(n);
        text += mine[n];
      }
    });
    if (seen.size !== mine.length) throw lost(mine);
    return { ...t, text };
  });
  return { ...result, translations };
}

const lost = (mine: string[]) =>
  new UpstreamError('invalid_response', `the engine did not keep the glossary terms (${mine.join(', ')})`);

/** After an LLM answered under prompt constraints: each text must hold the target of each term it had. */
export function checkTerms(texts: string[], result: EngineResult, entries: Terms): void {
  const { terms, pattern } = termsIn(texts, entries);
  if (!pattern) return;
  texts.forEach((text, i) => {
    const out = (result.translations[i]?.text ?? '').toLowerCase();
    for (const m of text.matchAll(pattern)) {
      const target = targetFor(terms, m[0]);
      if (!out.includes(target.toLowerCase())) {
        throw new UpstreamError('invalid_response', `the model did not use the glossary term '${target}'`);
      }
    }
  });
}
