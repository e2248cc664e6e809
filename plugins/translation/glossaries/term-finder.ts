/**
 * Which glossary source terms occur in a text, in one pass over the text whatever the glossary's size
 * (an Aho–Corasick automaton over the lower-cased terms). Built once per merged glossary and kept with it.
 *
 * The trie keeps each node's children as a linked list (most nodes have one or two); the root's children,
 * visited at almost every step of a scan, are in a map.
 */
export class TermFinder {
  private readonly rootChildren = new Map<number, number>();
  /** Per node: its UTF-16 unit, first child and next sibling (−1 = none). */
  private readonly unit: number[] = [-1];
  private readonly firstChild: number[] = [-1];
  private readonly nextSibling: number[] = [-1];
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
        const unit = t.charCodeAt(i);
        let child = this.child(node, unit);
        if (child === -1) child = this.add(node, unit);
        node = child;
      }
      // The first of equal terms answers for all of them (callers keep the first entry anyway).
      if (this.term[node] === -1) this.term[node] = index;
    });
    this.link();
  }

  private child(node: number, unit: number): number {
    if (node === 0) return this.rootChildren.get(unit) ?? -1;
    for (let c = this.firstChild[node] as number; c !== -1; c = this.nextSibling[c] as number) {
      if (this.unit[c] === unit) return c;
    }
    return -1;
  }

  private add(parent: number, unit: number): number {
    const node = this.unit.length;
    this.unit.push(unit);
    this.firstChild.push(-1);
    this.nextSibling.push(this.firstChild[parent] as number);
    this.firstChild[parent] = node;
    this.fail.push(0);
    this.term.push(-1);
    this.nextOutput.push(-1);
    if (parent === 0) this.rootChildren.set(unit, node);
    return node;
  }

  /** The state after reading `unit` in state `node` (following failure links). */
  private step(node: number, unit: number): number {
    let at = node;
    for (;;) {
      const next = this.child(at, unit);
      if (next !== -1) return next;
      if (at === 0) return 0;
      at = this.fail[at] as number;
    }
  }

  /** Breadth-first: a node's failure link is found from its parent's. */
  private link(): void {
    const queue: number[] = [];
    for (let c = this.firstChild[0] as number; c !== -1; c = this.nextSibling[c] as number) queue.push(c);
    for (let at = 0; at < queue.length; at++) {
      const node = queue[at] as number;
      for (let c = this.firstChild[node] as number; c !== -1; c = this.nextSibling[c] as number) {
        const fail = this.step(this.fail[node] as number, this.unit[c] as number);
        this.fail[c] = fail;
        this.nextOutput[c] = this.term[fail] !== -1 ? fail : (this.nextOutput[fail] as number);
        queue.push(c);
      }
    }
  }

  /** Marks `found[i]` for every term i occurring in `text` (as a substring). */
  scan(text: string, found: Uint8Array): void {
    if (this.emptyTerm !== -1) found[this.emptyTerm] = 1;
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      for (let out = this.term[node] !== -1 ? node : (this.nextOutput[node] as number); out !== -1; ) {
        found[this.term[out] as number] = 1;
        out = this.nextOutput[out] as number;
      }
    }
  }
}
