/**
 * Levenshtein distance from one query to many texts, bit-parallel (Myers' algorithm in Hyyrö's block
 * form): the query's rows are packed 32 to a word, and each text character advances a whole column in a
 * few word operations per block instead of one cell at a time.
 *
 * Per block, `pv`/`mv` mark rows whose vertical delta (D[i][j] − D[i−1][j]) is +1/−1; `ph`/`mh` the same
 * for horizontal deltas. A block hands the horizontal delta of its last row to the next block.
 */

/** Slot (1-based) of each UTF-16 unit of the current query; 0 = not in the query. Shared, reset per query. */
const slots = new Uint16Array(0x10000);

export class QueryDistance {
  private readonly blocks: number;
  /** Match masks: `peq[slot * blocks + b]` has bit r set when query row b·32 + r holds the slot's unit. */
  private readonly peq: Int32Array;
  private readonly units: number[] = [];
  private readonly pv: Int32Array;
  private readonly mv: Int32Array;
  /** The bit of the query's last row in the last block. */
  private readonly lastBit: number;

  constructor(readonly text: string) {
    const m = text.length;
    this.blocks = Math.max(1, Math.ceil(m / 32));
    for (let i = 0; i < m; i++) {
      const c = text.charCodeAt(i);
      if (slots[c] === 0) {
        this.units.push(c);
        slots[c] = this.units.length;
      }
    }
    this.peq = new Int32Array((this.units.length + 1) * this.blocks);
    for (let i = 0; i < m; i++) {
      const at = (slots[text.charCodeAt(i)] as number) * this.blocks + (i >> 5);
      this.peq[at] = (this.peq[at] as number) | (1 << (i & 31));
    }
    this.pv = new Int32Array(this.blocks);
    this.mv = new Int32Array(this.blocks);
    this.lastBit = m === 0 ? 0 : 1 << ((m - 1) & 31);
  }

  /** Frees the shared slot table for the next query (call once done with this one). */
  release(): void {
    for (const c of this.units) slots[c] = 0;
  }

  /** The distance to `text`, or `limit + 1` when it exceeds `limit`. */
  distance(text: string, limit: number): number {
    const m = this.text.length;
    const n = text.length;
    if (Math.abs(m - n) > limit) return limit + 1;
    if (m === 0) return n;
    const { blocks, peq, pv, mv, lastBit } = this;
    pv.fill(-1);
    mv.fill(0);
    let score = m;
    for (let j = 0; j < n; j++) {
      const slot = slots[text.charCodeAt(j)] as number;
      const base = slot * blocks;
      // Row 0 is D[0][j] = j: its horizontal delta is always +1.
      let hin = 1;
      for (let b = 0; b < blocks; b++) {
        let eq = peq[base + b] as number;
        const p = pv[b] as number;
        const mm = mv[b] as number;
        const xv = eq | mm;
        if (hin < 0) eq |= 1;
        const xh = ((((eq & p) + p) | 0) ^ p) | eq;
        let ph = mm | ~(xh | p);
        let mh = p & xh;
        const high = b === blocks - 1 ? lastBit : 0x80000000 | 0;
        const hout = ph & high ? 1 : mh & high ? -1 : 0;
        ph <<= 1;
        mh <<= 1;
        if (hin < 0) mh |= 1;
        else if (hin > 0) ph |= 1;
        pv[b] = mh | ~(xv | ph);
        mv[b] = ph & xv;
        hin = hout;
      }
      score += hin;
      // D[m][n] ≥ D[m][j] − (n − 1 − j): once that passes the limit, nothing later brings it back.
      if (score - (n - 1 - j) > limit) return limit + 1;
    }
    return score > limit ? limit + 1 : score;
  }
}
