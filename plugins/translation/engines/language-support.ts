import { FORMALITY_TARGETS, SOURCE_LANGUAGES, TARGET_LANGUAGES } from '../languages.ts';
import type { LanguageSupport } from './types.ts';

/** How long routing waits for an engine's first language list before using the fallback. */
export const ROUTING_WAIT_MS = 1000;

/** Support where every source can go to every target. */
export function allPairs(
  sources: Iterable<string>,
  targets: Iterable<string>,
  formality: Iterable<string>,
): LanguageSupport {
  const s = new Set(sources);
  const t = new Set(targets);
  return {
    sources: s,
    targets: t,
    formality: new Set(formality),
    serves: (source, target) => t.has(target) && (source === null || s.has(source)),
  };
}

/** DeepL's own published lists (docs/translation.md#languages), used until or unless the upstream tells us better. */
export const deeplDefaultSupport = (): LanguageSupport =>
  allPairs(SOURCE_LANGUAGES, TARGET_LANGUAGES, FORMALITY_TARGETS);

/**
 * Caches an engine's language list for `ttlMs`; a failed refresh keeps the last good list (or the
 * fallback) so a flapping upstream does not make languages disappear. Routing asks on every request, so
 * once a first load has finished (well or not) the answer is a stored value: no timer, no list rebuilt.
 */
export class LanguageCache {
  private value: LanguageSupport | null = null;
  /** Built once, on first need: the fallback lists hold every DeepL code. */
  private fallbackValue: LanguageSupport | null = null;
  private fetchedAt = 0;
  private pending: Promise<LanguageSupport> | null = null;

  constructor(
    private readonly load: () => Promise<LanguageSupport>,
    private readonly fallback: () => LanguageSupport,
    private readonly ttlMs = 3_600_000,
    private readonly retryMs = 30_000,
  ) {}

  private current(): LanguageSupport {
    if (this.value) return this.value;
    this.fallbackValue ??= this.fallback();
    return this.fallbackValue;
  }

  /** Whether the stored answer is due for a refresh (a good list after `ttlMs`, a fallback after `retryMs`). */
  private stale(): boolean {
    return Date.now() - this.fetchedAt >= (this.value ? this.ttlMs : this.retryMs);
  }

  /**
   * For routing: the stored answer at once (refreshing it in the background when stale); before the first
   * load has finished, waits for it at most `maxWaitMs` so a hanging upstream cannot hold requests up.
   */
  within(maxWaitMs: number): Promise<LanguageSupport> {
    if (this.fetchedAt > 0) {
      if (this.stale()) void this.get();
      return Promise.resolve(this.current());
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<LanguageSupport>((resolve) => {
      timer = setTimeout(() => resolve(this.current()), maxWaitMs);
    });
    return Promise.race([this.get(), late]).finally(() => clearTimeout(timer));
  }

  get(): Promise<LanguageSupport> {
    if (this.fetchedAt > 0 && !this.stale()) return Promise.resolve(this.current());
    this.pending ??= this.load()
      .then((support) => {
        this.value = support;
        return support;
      })
      .catch(() => this.current())
      .finally(() => {
        this.fetchedAt = Date.now();
        this.pending = null;
      });
    return this.pending;
  }
}
