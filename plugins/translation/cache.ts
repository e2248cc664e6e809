import type { ModelType } from './request/types.ts';

export interface CachedTranslation {
  text: string;
  detectedSource: string | null;
  modelTypeUsed: ModelType | null;
  at: number;
}

/**
 * In-memory LRU of translations (docs/translation.md#performance-budget: repeated announcements dominate). The key holds everything
 * that affects the output: the text and every option (see `optionsKey` in the service). A Map keeps
 * insertion order, so re-inserting on a hit makes the first entry the least recently used.
 */
export class TranslationCache {
  private readonly entries = new Map<string, CachedTranslation>();
  /** Approximate memory held (UTF-16: two bytes per code unit of key and text). */
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    /** A Pi has little memory: 50 long texts must not take what 5000 announcements would. */
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  private static sizeOf(key: string, value: CachedTranslation): number {
    return (key.length + value.text.length) * 2;
  }

  private remove(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.bytes -= TranslationCache.sizeOf(key, old);
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now = Date.now()): CachedTranslation | undefined {
    const entry = this.entries.get(key);
    if (!entry || now - entry.at > this.ttlMs) {
      if (entry) this.remove(key);
      this.misses++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry;
  }

  set(key: string, value: CachedTranslation): void {
    const size = TranslationCache.sizeOf(key, value);
    if (this.maxEntries <= 0 || size > this.maxBytes / 4) return; // one text never takes a quarter
    this.remove(key);
    this.entries.set(key, value);
    this.bytes += size;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
  }
}
