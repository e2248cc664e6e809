/**
 * Translation memory matching (docs/translation.md#translation-memory-matching): a character-level
 * normalised edit distance, `100 × (1 − distance / longer length)`, after collapsing whitespace and case.
 * Lookups go exact hash first, then only the segments whose length could reach the threshold.
 */

export const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Levenshtein distance, or `limit + 1` when it exceeds `limit`. Only the diagonal band |i − j| ≤ limit is
 * computed (a path leaving it costs more than the limit), and the scan stops once a row's minimum passes
 * the limit. Compares UTF-16 units: memory segments are sentences, where the difference does not matter.
 */
export function boundedDistance(a: string, b: string, limit: number, row: Uint32Array): number {
  const n = a.length;
  const m = b.length;
  const over = limit + 1;
  if (Math.abs(n - m) > limit) return over;
  for (let j = 0; j <= m; j++) row[j] = j <= limit ? j : over;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - limit);
    const hi = Math.min(m, i + limit);
    let diagonal = row[lo - 1] as number;
    const left0 = lo === 1 && i <= limit ? i : over;
    row[lo - 1] = left0;
    let best = left0;
    const ca = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      const above = row[j] as number;
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + cost);
      if (value > over) value = over;
      row[j] = value;
      diagonal = above;
      if (value < best) best = value;
    }
    if (best > limit) return over;
  }
  return Math.min(row[m] as number, over);
}

/** Buckets of the character histograms behind the cheap lower bound. */
const BUCKETS = 64;

function histogram(text: string, into: Uint8Array, at: number): void {
  for (let i = 0; i < text.length; i++) {
    const k = at + (text.charCodeAt(i) & (BUCKETS - 1));
    if ((into[k] as number) < 255) into[k] = (into[k] as number) + 1;
  }
}

/**
 * A lower bound of the edit distance from character counts: one edit changes the histogram by at most one
 * up and one down, so the distance is at least the larger of the total surplus and the total deficit.
 */
function bagBound(a: Uint8Array, b: Uint8Array, at: number): number {
  let up = 0;
  let down = 0;
  for (let k = 0; k < BUCKETS; k++) {
    const d = (a[k] as number) - (b[at + k] as number);
    if (d > 0) up += d;
    else down -= d;
  }
  return up > down ? up : down;
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
  /** The character histogram of each entry of `byLength`, BUCKETS bytes each. */
  private readonly histograms: Uint8Array;
  private row = new Uint32Array(256);
  private readonly query = new Uint8Array(BUCKETS);

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
    this.histograms = new Uint8Array(this.byLength.length * BUCKETS);
    this.byLength.forEach((e, i) => {
      histogram(e.key, this.histograms, i * BUCKETS);
    });
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
    this.query.fill(0);
    histogram(key, this.query, 0);
    let found: { index: number; score: number } | null = null;
    for (let i = lo; i < this.byLength.length; i++) {
      const entry = this.byLength[i] as MatchIndexEntry;
      if (entry.key.length > max) break;
      const longer = Math.max(key.length, entry.key.length);
      const bestSoFar = found ? found.score : threshold;
      // Allowed distance for beating the best so far (or reaching the threshold).
      const limit = Math.floor(longer * (1 - bestSoFar / 100));
      if (bagBound(this.query, this.histograms, i * BUCKETS) > limit) continue;
      if (this.row.length <= entry.key.length) this.row = new Uint32Array(entry.key.length * 2 + 1);
      const distance = boundedDistance(key, entry.key, limit, this.row);
      if (distance > limit) continue;
      const score = (100 * (longer - distance)) / longer;
      if (score >= threshold && (!found || score > found.score)) found = { index: entry.index, score };
    }
    return found;
  }
}
