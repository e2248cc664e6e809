/**
 * Translation memory matching (docs/translation.md#translation-memory-matching): a character-level
 * normalised edit distance, `100 × (1 − distance / longer length)`, after collapsing whitespace and case.
 * Lookups go exact hash first, then only the segments whose length could reach the threshold.
 */

export const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Levenshtein distance, or `limit + 1` as soon as it must exceed `limit` (each row's minimum only grows).
 * Compares UTF-16 units: the segments a memory holds are sentences, where the difference does not matter.
 */
export function boundedDistance(a: string, b: string, limit: number, row: Uint32Array): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const n = b.length;
  for (let j = 0; j <= n; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    let best = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const above = row[j] as number;
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + cost);
      row[j] = value;
      diagonal = above;
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
  }
  return row[n] as number;
}

export interface MatchIndexEntry {
  /** Normalised source text. */
  key: string;
  index: number;
}

/** The segments of one memory, by normalised text and by length. */
export class MatchIndex {
  private readonly exact = new Map<string, number>();
  /** Sorted by key length. */
  private readonly byLength: MatchIndexEntry[];
  private row = new Uint32Array(256);

  constructor(sources: string[]) {
    const entries: MatchIndexEntry[] = [];
    sources.forEach((source, index) => {
      const key = normalize(source);
      if (!this.exact.has(key)) {
        this.exact.set(key, index);
        entries.push({ key, index });
      }
    });
    this.byLength = entries.sort((a, b) => a.key.length - b.key.length);
  }

  /** The best segment scoring at least `threshold` (50–100), with its score; exact matches score 100. */
  best(text: string, threshold: number): { index: number; score: number } | null {
    const key = normalize(text);
    const exact = this.exact.get(key);
    if (exact !== undefined) return { index: exact, score: 100 };
    if (threshold >= 100 || key.length === 0) return null;
    // score ≥ t needs distance ≤ (1 − t/100)·max(len), so the other length lies in [len·t/100, len·100/t].
    const ratio = threshold / 100;
    const min = Math.ceil(key.length * ratio);
    const max = Math.floor(key.length / ratio);
    let lo = 0;
    let hi = this.byLength.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.byLength[mid] as MatchIndexEntry).key.length < min) lo = mid + 1;
      else hi = mid;
    }
    let found: { index: number; score: number } | null = null;
    for (let i = lo; i < this.byLength.length; i++) {
      const entry = this.byLength[i] as MatchIndexEntry;
      if (entry.key.length > max) break;
      const longer = Math.max(key.length, entry.key.length);
      const bestSoFar = found ? found.score : threshold;
      // Allowed distance for beating the best so far (or reaching the threshold).
      const limit = Math.floor(longer * (1 - bestSoFar / 100));
      if (this.row.length <= entry.key.length) this.row = new Uint32Array(entry.key.length * 2 + 1);
      const distance = boundedDistance(key, entry.key, limit, this.row);
      if (distance > limit) continue;
      const score = (100 * (longer - distance)) / longer;
      if (score >= threshold && (!found || score > found.score)) found = { index: entry.index, score };
    }
    return found;
  }
}
