/**
 * A trigram index over normalised memory segments, to find the few that could score at least a threshold
 * (docs/translation.md#how-fuzzy-lookups-stay-fast).
 *
 * Each segment is reduced to tokens: a trigram with its occurrence number ("the" once, "the" twice…), so
 * the tokens two texts share count their common trigrams with multiplicity. Two texts at edit distance d
 * share at least `max(n, m) − 2 − 3d` of them (one edit breaks at most three trigrams). So a segment that
 * could reach the threshold shares at least T tokens with the query, and therefore holds at least one of
 * any G − T + 1 of the query's G tokens: the rarest ones are looked up first, only the segments found there
 * are candidates, and the remaining tokens are counted for those candidates alone.
 *
 * Memory: one 32-bit entry per trigram of every segment (about twice the segments' own UTF-16 size) plus
 * one map entry per distinct token, built once when a memory is loaded.
 */
import { allowedDistance } from './score.ts';

const Q = 3;

export class QgramIndex {
  /** Token (see `tokensOf`) → token id. */
  private readonly ids = new Map<number, number>();
  /** Positions holding each token, ascending: `postings[starts[t] … starts[t + 1])`. */
  private readonly starts: Uint32Array;
  private readonly postings: Uint32Array;
  /** Per-position scratch for one lookup: the lookup that last touched it, and its shared count. */
  private readonly seenBy: Uint32Array;
  private readonly shared: Uint32Array;
  /** Scratch lists of positions: found by the rarest tokens, then kept in order of shared count. */
  private readonly found: Uint32Array;
  readonly order: Uint32Array;
  private lookup = 0;
  private buffer = new Uint32Array(256);

  /** The fewest shared tokens a text pair at this longer length and distance can have. */
  static sharedAtLeast(longer: number, distance: number): number {
    return longer - Q + 1 - Q * distance;
  }

  /** `keys` are normalised and sorted by length; a key's position is its index there. */
  constructor(keys: readonly string[]) {
    let total = 0;
    for (const key of keys) total += Math.max(0, key.length - Q + 1);
    // Every key's token ids in one array (a counting sort then builds the postings from it).
    const flat = new Uint32Array(total);
    const counts: number[] = [];
    let at = 0;
    for (const key of keys) {
      const tokens = this.tokensOf(key);
      for (let k = 0; k < tokens.length; k++) {
        const token = tokens[k] as number;
        let id = this.ids.get(token);
        if (id === undefined) {
          id = counts.length;
          this.ids.set(token, id);
          counts.push(0);
        }
        counts[id] = (counts[id] as number) + 1;
        flat[at++] = id;
      }
    }
    this.starts = new Uint32Array(counts.length + 1);
    for (let t = 0; t < counts.length; t++)
      this.starts[t + 1] = (this.starts[t] as number) + (counts[t] as number);
    this.postings = new Uint32Array(total);
    const fill = this.starts.slice(0, counts.length);
    at = 0;
    keys.forEach((key, position) => {
      for (let k = Math.max(0, key.length - Q + 1); k > 0; k--) {
        const id = flat[at++] as number;
        this.postings[fill[id] as number] = position;
        fill[id] = (fill[id] as number) + 1;
      }
    });
    this.seenBy = new Uint32Array(keys.length);
    this.shared = new Uint32Array(keys.length);
    this.found = new Uint32Array(keys.length);
    this.order = new Uint32Array(keys.length);
  }

  /**
   * The tokens of `key`: each trigram hashed to 22 bits, with its occurrence number (capped at 15) in the
   * low 4 bits. Two trigrams sharing a hash, or occurrences past the cap, only merge tokens: counts can
   * come out higher, never lower, so no match is lost (a few more candidates are checked).
   */
  private tokensOf(key: string): Uint32Array {
    const count = Math.max(0, key.length - Q + 1);
    if (this.buffer.length < count) this.buffer = new Uint32Array(count * 2);
    const seen = occurrences();
    for (let i = 0; i < count; i++) {
      const h =
        (Math.imul(key.charCodeAt(i), 0x9e3779b1) ^
          Math.imul(key.charCodeAt(i + 1), 0x85ebca77) ^
          Math.imul(key.charCodeAt(i + 2), 0xc2b2ae3d)) >>>
        10;
      const occurrence = Math.min(15, (seen[h] as number) + 1);
      seen[h] = occurrence;
      this.buffer[i] = (h << 4) | occurrence;
    }
    for (let i = 0; i < count; i++) seen[(this.buffer[i] as number) >>> 4] = 0;
    return this.buffer.subarray(0, count);
  }

  /**
   * Finds the positions in [lo, hi) that could score at least `threshold` against `key` and returns how
   * many: they are `order[0 … count)`, most shared tokens first (`sharedBy(position)`). Returns −1 when
   * trigrams cannot rule any out (a short query or a lax threshold): then every position in the range is
   * a candidate.
   */
  candidates(key: string, threshold: number, lo: number, hi: number, lengths: Uint32Array): number {
    const grams = key.length - Q + 1;
    // The fewest tokens a segment of any length in the range shares when it reaches the threshold.
    const maxLength = lengths[hi - 1] as number;
    let needed = Number.POSITIVE_INFINITY;
    for (let longer = key.length; longer <= Math.max(key.length, maxLength); longer++) {
      needed = Math.min(needed, QgramIndex.sharedAtLeast(longer, allowedDistance(longer, threshold)));
    }
    if (grams <= 0 || needed <= 0) return -1;
    // Each query token with its postings inside [lo, hi); a token no segment has holds nobody.
    const ranges: [number, number][] = [];
    for (const token of this.tokensOf(key)) {
      const id = this.ids.get(token);
      if (id === undefined) ranges.push([0, 0]);
      else {
        const from = this.starts[id] as number;
        const to = this.starts[id + 1] as number;
        ranges.push([this.search(from, to, lo), this.search(from, to, hi)]);
      }
    }
    ranges.sort((a, b) => a[1] - a[0] - (b[1] - b[0]));
    const prefix = grams - needed + 1;
    this.lookup = (this.lookup + 1) >>> 0;
    if (this.lookup === 0) {
      this.seenBy.fill(0);
      this.lookup = 1;
    }
    const found = this.found;
    let count = 0;
    for (let r = 0; r < prefix; r++) {
      const [from, to] = ranges[r] as [number, number];
      for (let k = from; k < to; k++) {
        const position = this.postings[k] as number;
        if (this.seenBy[position] !== this.lookup) {
          this.seenBy[position] = this.lookup;
          this.shared[position] = 0;
          found[count++] = position;
        }
        this.shared[position] = (this.shared[position] as number) + 1;
      }
    }
    if (count === 0) return 0;
    // The frequent tokens are only counted for the candidates already found.
    for (let r = prefix; r < ranges.length; r++) {
      const [from, to] = ranges[r] as [number, number];
      if (to - from <= count * 8) {
        for (let k = from; k < to; k++) {
          const position = this.postings[k] as number;
          if (this.seenBy[position] === this.lookup)
            this.shared[position] = (this.shared[position] as number) + 1;
        }
      } else {
        for (let c = 0; c < count; c++) {
          const position = found[c] as number;
          const at = this.search(from, to, position);
          if (at < to && this.postings[at] === position)
            this.shared[position] = (this.shared[position] as number) + 1;
        }
      }
    }
    // Keep those sharing enough for their own length, ordered by shared count (a counting sort).
    const buckets = new Uint32Array(grams + 2);
    let kept = 0;
    for (let c = 0; c < count; c++) {
      const position = found[c] as number;
      const shared = this.shared[position] as number;
      const longer = Math.max(key.length, lengths[position] as number);
      if (shared >= QgramIndex.sharedAtLeast(longer, allowedDistance(longer, threshold))) {
        found[kept++] = position;
        buckets[grams - Math.min(shared, grams)] = (buckets[grams - Math.min(shared, grams)] as number) + 1;
      }
    }
    for (let b = 1; b < buckets.length; b++) buckets[b] = (buckets[b] as number) + (buckets[b - 1] as number);
    for (let c = kept - 1; c >= 0; c--) {
      const position = found[c] as number;
      const b = grams - Math.min(this.shared[position] as number, grams);
      buckets[b] = (buckets[b] as number) - 1;
      this.order[buckets[b] as number] = position;
    }
    return kept;
  }

  /** Query tokens held by a position found by the last `candidates` call. */
  sharedBy(position: number): number {
    return this.shared[position] as number;
  }

  /** The first index in postings[from, to) whose position is ≥ `position`. */
  private search(from: number, to: number, position: number): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.postings[mid] as number) < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Occurrence counts by trigram hash while one key is tokenised (4 MiB, shared, zeroed after each key). */
let occurrenceTable: Uint8Array | null = null;
const occurrences = (): Uint8Array => {
  occurrenceTable ??= new Uint8Array(1 << 22);
  return occurrenceTable;
};
