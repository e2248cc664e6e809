/**
 * Translation memory matching (docs/translation.md#translation-memory-matching): a character-level
 * normalised edit distance, `100 × (1 − distance / longer length)`, after collapsing whitespace and case.
 * The best segment scoring at least the threshold wins; on equal scores the shorter segment, then the one
 * stored first. Lookups go exact hash first, then a trigram index picks the few segments that could reach
 * the threshold (docs/translation.md#how-fuzzy-lookups-stay-fast), then the distance decides.
 */
import { QueryDistance } from './bit-distance.ts';
import { QgramIndex } from './qgram-index.ts';
import { allowedDistance } from './score.ts';

export const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

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

/** The threshold of the first, cheap pass (typo-level differences are found there). */
const FIRST_PASS = 90;

export interface MemoryMatch {
  /** Index of the segment in the list the index was built from. */
  index: number;
  /** 100 × (1 − distance / longer length). */
  score: number;
}

/** A scored candidate, kept as integers: distance over the longer length. */
interface Scored {
  position: number;
  distance: number;
  longer: number;
}

/** Whether `a` beats `b`: a higher score ((L − d)/L, compared by cross-multiplying), else an earlier position. */
function beats(a: Scored, b: Scored | null): boolean {
  if (!b) return true;
  const left = (a.longer - a.distance) * b.longer;
  const right = (b.longer - b.distance) * a.longer;
  return left > right || (left === right && a.position < b.position);
}

/** The segments of one memory, by normalised text, by length and by trigram. */
export class MatchIndex {
  private readonly exact = new Map<string, number>();
  /** Distinct normalised sources sorted by length (stable: the first stored comes first); a position is an index here. */
  private readonly keys: string[];
  /** The segment index of each position. */
  private readonly indexes: Uint32Array;
  private readonly lengths: Uint32Array;
  /** The character histogram of each position, BUCKETS bytes each. */
  private readonly histograms: Uint8Array;
  private readonly grams: QgramIndex;
  private readonly query = new Uint8Array(BUCKETS);

  constructor(sources: string[]) {
    const entries: { key: string; index: number }[] = [];
    sources.forEach((source, index) => {
      const key = normalize(source);
      if (!this.exact.has(key)) {
        this.exact.set(key, index);
        entries.push({ key, index });
      }
    });
    entries.sort((a, b) => a.key.length - b.key.length);
    this.keys = entries.map((e) => e.key);
    this.indexes = Uint32Array.from(entries, (e) => e.index);
    this.lengths = Uint32Array.from(entries, (e) => e.key.length);
    this.histograms = new Uint8Array(entries.length * BUCKETS);
    this.keys.forEach((key, i) => {
      histogram(key, this.histograms, i * BUCKETS);
    });
    this.grams = new QgramIndex(this.keys);
  }

  get size(): number {
    return this.keys.length;
  }

  /** The best segment scoring at least `threshold` (an integer, 50–100); exact matches score 100. */
  best(text: string, threshold: number): MemoryMatch | null {
    const key = normalize(text);
    const exact = this.exact.get(key);
    if (exact !== undefined) return { index: exact, score: 100 };
    if (threshold >= 100 || key.length === 0) return null;
    this.query.fill(0);
    histogram(key, this.query, 0);
    const distance = new QueryDistance(key);
    let found: Scored | null = null;
    try {
      // A search at a stricter threshold is complete for it and far cheaper (fewer candidates): when it
      // finds a match, that match is the best overall; only when it finds none is the full threshold needed.
      for (const pass of threshold < FIRST_PASS ? [FIRST_PASS, threshold] : [threshold]) {
        found = this.search(distance, pass);
        if (found) break;
      }
    } finally {
      distance.release();
    }
    if (!found) return null;
    return {
      index: this.indexes[found.position] as number,
      score: (100 * (found.longer - found.distance)) / found.longer,
    };
  }

  /** The best position scoring at least `threshold`, among every segment that could. */
  private search(query: QueryDistance, threshold: number): Scored | null {
    const key = query.text;
    const [lo, hi] = this.band(key.length, threshold);
    if (lo >= hi) return null;
    const count = this.grams.candidates(key, threshold, lo, hi, this.lengths);
    let found: Scored | null = null;
    if (count < 0) {
      // Too short or too lax for trigrams to rule anything out: every segment in the length band.
      for (let p = lo; p < hi; p++) found = this.consider(query, p, threshold, found);
      return found;
    }
    // Most shared trigrams first: a good match found early tightens the bound for the rest.
    for (let c = 0; c < count; c++) {
      const position = this.grams.order[c] as number;
      const shared = this.grams.sharedBy(position);
      const longer = Math.max(key.length, this.lengths[position] as number);
      if (found && shared < QgramIndex.sharedAtLeast(longer, this.allowed(longer, threshold, found)))
        continue;
      found = this.consider(query, position, threshold, found);
    }
    return found;
  }

  /** Positions whose length can reach the threshold: the other length lies in [len·t/100, len·100/t]. */
  private band(length: number, threshold: number): [number, number] {
    const min = Math.ceil((length * threshold) / 100);
    const max = Math.floor((length * 100) / threshold);
    return [this.firstOfLength(min), this.firstOfLength(max + 1)];
  }

  private firstOfLength(length: number): number {
    let lo = 0;
    let hi = this.lengths.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.lengths[mid] as number) < length) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The largest distance at `longer` that reaches the threshold and at least ties the best so far (a tie
   * still counts: an earlier position wins it).
   */
  private allowed(longer: number, threshold: number, found: Scored | null): number {
    const limit = allowedDistance(longer, threshold);
    if (!found) return limit;
    return Math.min(limit, longer - Math.ceil(((found.longer - found.distance) * longer) / found.longer));
  }

  /** Scores one position if it can beat what was found so far (and reach the threshold). */
  private consider(
    query: QueryDistance,
    position: number,
    threshold: number,
    found: Scored | null,
  ): Scored | null {
    const other = this.keys[position] as string;
    const longer = Math.max(query.text.length, other.length);
    const limit = this.allowed(longer, threshold, found);
    if (limit < 0 || bagBound(this.query, this.histograms, position * BUCKETS) > limit) return found;
    const distance = query.distance(other, limit);
    if (distance > limit) return found;
    const scored = { position, distance, longer };
    return beats(scored, found) ? scored : found;
  }
}
