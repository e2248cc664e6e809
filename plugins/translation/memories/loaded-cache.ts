/**
 * Memories kept loaded for lookups, least recently used first, bounded by count and by the characters
 * their segments hold (a loaded memory also carries its match index, about twice its text). The memory
 * just loaded always stays, even alone over the bound: the request that loaded it needs it.
 */
export class LoadedCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; size: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
    private readonly sizeOf: (value: T) => number,
  ) {}

  get count(): number {
    return this.entries.size;
  }

  /** Characters held by the loaded memories. */
  get size(): number {
    return this.total;
  }

  /** The entry, now the most recently used. */
  get(id: string): Promise<T> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.value;
  }

  /** Adds a loading entry; its size counts once it has loaded, and a failed load is forgotten. */
  set(id: string, value: Promise<T>): void {
    this.delete(id);
    const entry = { value, size: 0 };
    this.entries.set(id, entry);
    value.then(
      (loaded) => {
        if (this.entries.get(id) !== entry) return;
        entry.size = this.sizeOf(loaded);
        this.total += entry.size;
        this.evict(id);
      },
      () => {
        if (this.entries.get(id) === entry) this.delete(id);
      },
    );
    this.evict(id);
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.total -= entry.size;
  }

  private evict(keep: string): void {
    for (const id of [...this.entries.keys()]) {
      if (this.entries.size <= this.maxEntries && this.total <= this.maxSize) return;
      if (id !== keep) this.delete(id);
    }
  }
}
