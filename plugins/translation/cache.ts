import type { ModelType } from './request/types.ts';

export interface CachedTranslation {
  text: string;
  detectedSource: string | null;
  modelTypeUsed: ModelType | null;
  at: number;
}

/**
 * In-memory LRU of translations (research §5: repeated announcements dominate). The key holds everything
 * that affects the output: the text and every option (see `optionsKey` in the service). A Map keeps
 * insertion order, so re-inserting on a hit makes the first entry the least recently used.
 */
export class TranslationCache {
  private readonly entries = new Map<string, CachedTranslation>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now = Date.now()): CachedTranslation | undefined {
    const entry = this.entries.get(key);
    if (!entry || now - entry.at > this.ttlMs) {
      if (entry) this.entries.delete(key);
      this.misses++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry;
  }

  set(key: string, value: CachedTranslation): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
