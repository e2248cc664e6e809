import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MatchIndex, normalize } from '../../plugins/translation/memories/fuzzy.ts';

/** Plain Levenshtein over UTF-16 units. */
function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/**
 * The documented scoring by brute force: every stored segment scored, 100·(1 − d/longer) ≥ threshold,
 * the highest score wins, then the shorter segment, then the one stored first.
 */
function bruteForce(sources: string[], text: string, threshold: number, distance = levenshtein) {
  const key = normalize(text);
  let best: { index: number; d: number; longer: number; length: number } | null = null;
  const seen = new Set<string>();
  sources.forEach((source, index) => {
    const other = normalize(source);
    if (seen.has(other)) return;
    seen.add(other);
    if (other === key) {
      best = { index, d: 0, longer: Math.max(1, key.length), length: -1 };
      return;
    }
    if (threshold >= 100 || key.length === 0) return;
    const longer = Math.max(key.length, other.length);
    const d = distance(key, other);
    if (100 * (longer - d) < threshold * longer) return;
    const current = best as { index: number; d: number; longer: number; length: number } | null;
    if (current) {
      const left = (longer - d) * current.longer;
      const right = (current.longer - current.d) * longer;
      if (left < right || (left === right && other.length >= current.length)) return;
    }
    best = { index, d, longer, length: other.length };
  });
  const found = best as { index: number; d: number; longer: number; length: number } | null;
  if (!found) return null;
  return { index: found.index, score: (100 * (found.longer - found.d)) / found.longer };
}

const WORDS = ['the', 'door', 'is', 'open', 'closed', 'light', 'on', 'off', 'in', 'kitchen', 'a', 'hall'];

describe('memory index', () => {
  it('finds exactly what scoring every segment finds (fast-check against the brute-force scorer)', () => {
    const word = fc.constantFrom(...WORDS);
    const sentence = fc.array(word, { minLength: 1, maxLength: 9 }).map((w) => w.join(' '));
    const noise = fc.string({ unit: fc.constantFrom('a', 'b', 'e', 'o', ' ', 'T'), maxLength: 30 });
    const segment = fc.oneof(sentence, noise);
    const edit = fc.record({ at: fc.nat(), char: fc.constantFrom('x', 'e', ' ', ''), kind: fc.nat(2) });
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 0, maxLength: 40 }),
        fc.nat(),
        fc.array(edit, { maxLength: 6 }),
        fc.oneof(fc.integer({ min: 50, max: 100 }), fc.constantFrom(50, 75, 100)),
        fc.option(segment),
        (sources, pick, edits, threshold, other) => {
          // The query: a stored segment with a few edits, or something else.
          let query = other ?? sources[pick % Math.max(1, sources.length)] ?? '';
          for (const { at, char, kind } of edits) {
            const i = query.length === 0 ? 0 : at % query.length;
            if (kind === 0) query = query.slice(0, i) + char + query.slice(i);
            else if (kind === 1) query = query.slice(0, i) + query.slice(i + 1);
            else query = query.slice(0, i) + char + query.slice(i + 1);
          }
          const index = new MatchIndex(sources);
          expect(index.best(query, threshold)).toEqual(bruteForce(sources, query, threshold));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('agrees with the brute-force scorer on hundreds of sentences at every threshold step', () => {
    let s = 7;
    const next = () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const sentence = () =>
      Array.from(
        { length: 3 + Math.floor(next() * 10) },
        () => WORDS[Math.floor(next() * WORDS.length)],
      ).join(' ');
    const sources = Array.from({ length: 800 }, sentence);
    const index = new MatchIndex(sources);
    for (let q = 0; q < 30; q++) {
      const base = q % 2 === 0 ? (sources[Math.floor(next() * sources.length)] as string) : sentence();
      const at = Math.floor(next() * base.length);
      const query = `${base.slice(0, at)}zq${base.slice(at + 1)}`;
      const known = new Map<string, number>();
      const distance = (a: string, b: string) => known.get(b) ?? known.set(b, levenshtein(a, b)).get(b) ?? 0;
      for (const threshold of [50, 60, 75, 90, 99]) {
        expect(index.best(query, threshold)).toEqual(bruteForce(sources, query, threshold, distance));
      }
    }
  });
});
