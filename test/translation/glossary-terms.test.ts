import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Terms, termsIn } from '../../plugins/translation/glossaries/enforce.ts';

/** The per-term scan the automaton replaced: every entry searched for in every text. */
function scanEveryTerm(texts: string[], entries: Terms): { terms: Terms; source: string | null } {
  const lower = texts.map((t) => t.toLowerCase());
  const terms = entries
    .filter(([s]) => lower.some((t) => t.includes(s.toLowerCase())))
    .sort((a, b) => b[0].length - a[0].length);
  if (terms.length === 0) return { terms, source: null };
  const alternation = terms.map(([s]) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return { terms, source: `(?<![\\p{L}\\p{N}])(?:${alternation})(?![\\p{L}\\p{N}])` };
}

describe('glossary term search', () => {
  it('finds the same terms in the same order as searching for every term in every text (fast-check)', () => {
    const unit = fc.constantFrom('a', 'b', 'A', 'B', ' ', 'é', 'É', 'İ', '.', '*');
    const term = fc.string({ unit, minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(term, fc.string({ unit, maxLength: 4 })), { maxLength: 30 }),
        fc.array(fc.string({ unit, maxLength: 40 }), { maxLength: 4 }),
        (pairs, texts) => {
          // Source terms are unique within a glossary (case may differ).
          const seen = new Set<string>();
          const entries = pairs.filter(([s]) => !seen.has(s) && seen.add(s));
          const got = termsIn(texts, entries);
          const want = scanEveryTerm(texts, entries);
          expect(got.terms).toEqual(want.terms);
          expect(got.pattern?.source ?? null).toBe(want.source);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds terms of a glossary with thousands of entries, including terms inside terms', () => {
    const entries: [string, string][] = Array.from({ length: 5000 }, (_, i) => [`term${i}`, `Begriff${i}`]);
    entries.push(['washing machine', 'Waschmaschine'], ['machine', 'Maschine'], ['Kitchen', 'Küche']);
    const texts = ['The WASHING machine in the kitchen', 'term42 and term4999 and term5000'];
    const { terms } = termsIn(texts, entries);
    expect(terms).toEqual(scanEveryTerm(texts, entries).terms);
    expect(terms.map(([s]) => s)).toEqual([
      'washing machine',
      'term4999',
      'term499',
      'term500',
      'machine',
      'Kitchen',
      'term42',
      'term49',
      'term50',
      'term4',
      'term5',
    ]);
  });
});
