/**
 * Which glossary source terms occur in a text, in one pass over the text whatever the glossary's size
 * (an Aho–Corasick automaton over the lower-cased terms). Built once per merged glossary and kept with it.
 */

export class TermFinder {
  /** Trie edges, keyed `node · 65536 + UTF-16 unit` (one map instead of one per node). */
  private readonly edges = new Map<number, number>();
  /** Per node: the longest proper suffix that is also a trie node. */
  private readonly fail: number[] = [0];
  /** Per node: the term ending exactly here (−1 if none), and the nearest suffix node where one ends. */
  private readonly term: number[] = [-1];
  private readonly nextOutput: number[] = [-1];
  /** An empty term occurs in every text. */
  private emptyTerm = -1;

  /** `terms` are matched as given; callers pass them lower-cased. */
  constructor(terms: readonly string[]) {
    terms.forEach((t, index) => {
      if (t.length === 0) {
        if (this.emptyTerm === -1) this.emptyTerm = index;
        return;
      }
      let node = 0;
      for (let i = 0; i < t.length; i++) {
        const key = node * 65536 + t.charCodeAt(i);
        let child = this.edges.get(key);
        if (child === undefined) {
          child = this.fail.length;
          this.fail.push(0);
          this.term.push(-1);
          this.nextOutput.push(-1);
          this.edges.set(key, child);
        }
        node = child;
      }
      // The first of equal terms answers for all of them (callers keep the first entry anyway).
      if (this.term[node] === -1) this.term[node] = index;
    });
    this.link();
  }

  /** Breadth-first: a node's failure link is found from its parent's. */
  private link(): void {
    const children = new Map<number, [number, number][]>();
    for (const [key, child] of this.edges) {
      const parent = Math.floor(key / 65536);
      const list = children.get(parent);
      if (list) list.push([key % 65536, child]);
      else children.set(parent, [[key % 65536, child]]);
    }
    const queue: number[] = [];
    for (const [, child] of children.get(0) ?? []) queue.push(child);
    for (let at = 0; at < queue.length; at++) {
      const node = queue[at] as number;
      for (const [unit, child] of children.get(node) ?? []) {
        let f = this.fail[node] as number;
        let target = this.edges.get(f * 65536 + unit);
        while (target === undefined && f !== 0) {
          f = this.fail[f] as number;
          target = this.edges.get(f * 65536 + unit);
        }
        const fail = target ?? 0;
        this.fail[child] = fail;
        this.nextOutput[child] = this.term[fail] !== -1 ? fail : (this.nextOutput[fail] as number);
        queue.push(child);
      }
    }
  }

  /** Marks `found[i]` for every term i occurring in `text` (as a substring). */
  scan(text: string, found: Uint8Array): void {
    if (this.emptyTerm !== -1) found[this.emptyTerm] = 1;
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      let next = this.edges.get(node * 65536 + unit);
      while (next === undefined && node !== 0) {
        node = this.fail[node] as number;
        next = this.edges.get(node * 65536 + unit);
      }
      node = next ?? 0;
      for (let out = this.term[node] !== -1 ? node : (this.nextOutput[node] as number); out !== -1; ) {
        found[this.term[out] as number] = 1;
        out = this.nextOutput[out] as number;
      }
    }
  }
}
