import type { UsageLedger } from './accounting/usage-ledger.ts';
import { characterCount } from './accounting/usage-ledger.ts';
import type { CachedTranslation, TranslationCache } from './cache.ts';
import { type AbortLike, Cancellation } from './cancellation.ts';
import type { EngineChain } from './engines/chain.ts';
import { invalid, keyLimitReached, notFoundError } from './errors.ts';
import { type ActiveGlossary, activeGlossary } from './glossaries/active.ts';
import type { GlossaryStore } from './glossaries/store.ts';
import { rootOf } from './languages.ts';
import type { LoadedMemory, MemoryStore } from './memories/store.ts';
import { ownValue } from './own.ts';
import type { TranslateRequest } from './request/types.ts';
import { SharedCall } from './shared-call.ts';
import { type ActiveStyle, activeStyle } from './style-rules/active.ts';
import type { StyleRuleStore } from './style-rules/store.ts';
import { type PreparedMarkup, prepareMarkup } from './tags/markup.ts';

/** Who is billed: a developer key, a site token's client, or a site (announcements). */
export interface Account {
  id: string;
  /** Monthly character limit; null = unlimited. */
  limit: number | null;
}

export interface TranslationOut {
  detected_source_language: string;
  text: string;
  billed_characters?: number;
  model_type_used?: string;
  tag_handling_version?: string;
}

export const NO_ENGINE_MESSAGE =
  'No translation engine is configured: add one under plugins.translation.engines (see plugins/translation/README.md).';

/** Everything but the text that changes a translation; with the text it is the cache key. */
function optionsKey(
  req: TranslateRequest,
  glossary: ActiveGlossary | null,
  style: ActiveStyle | null,
): string {
  return JSON.stringify([
    glossary?.digest ?? null,
    style?.digest ?? null,
    req.source,
    req.target,
    req.formality,
    req.context,
    req.customInstructions,
    req.modelType,
    req.splitSentences,
    req.preserveFormatting,
    req.tags,
  ]);
}

/**
 * One translate request: resources that part 1 does not have yet answer 404 (spec: an unknown translation
 * memory is a 404), the characters are reserved against the account's limit, cached texts are answered
 * from memory, the rest go to the engine chain in one batch, and usage is recorded once on success.
 */
/** The glossary and style rule list a request's engine calls apply. */
interface Applied {
  glossary: ActiveGlossary | null;
  style: ActiveStyle | null;
}

/** A text under way: the shared upstream call and the text's place in its batch. */
interface InFlight {
  call: SharedCall<CachedTranslation[]>;
  index: number;
}

/** What a request that names no glossary, style rule list or memory applies. */
const NO_RESOURCES = { glossary: null, memory: null, style: null } as const;

/** Whether the request names a glossary, a style rule list or a translation memory (`resources` looks them up). */
const namesResources = (req: TranslateRequest): boolean =>
  req.glossaryIds.length > 0 || req.styleId !== null || req.translationMemoryId !== null;

/** The signal of a caller that never leaves early (announcements go out whoever waits). */
const STAYING: AbortLike = new Cancellation();

/** Why a request leaves the calls it joined once it has its answer (nobody reads it). */
const ANSWERED = 'answered';

export class TranslateService {
  /** Translations under way, by cache key. */
  private readonly inFlight = new Map<string, InFlight>();
  /**
   * The hub stopping, as a Cancellation: every upstream call listens to it, and adding and removing a
   * listener on an AbortSignal (an EventTarget) costs several times more per request.
   */
  private readonly stopping = new Cancellation();

  constructor(
    private readonly chain: EngineChain | null,
    private readonly cache: TranslationCache,
    private readonly ledger: UsageLedger,
    signal: AbortSignal,
    private readonly glossaries: GlossaryStore,
    private readonly memories: MemoryStore,
    private readonly styleRules: StyleRuleStore,
  ) {
    if (signal.aborted) this.stopping.abort(signal.reason);
    else signal.addEventListener('abort', () => this.stopping.abort(signal.reason), { once: true });
  }

  /**
   * `caller` aborts when the client has gone (its connection closed): the request stops waiting, and
   * upstream work nobody else waits for is cancelled.
   */
  async translate(
    req: TranslateRequest,
    account: Account,
    tag: string,
    caller: AbortLike = STAYING,
  ): Promise<TranslationOut[]> {
    if (!this.chain) throw invalid(NO_ENGINE_MESSAGE);
    // Everything a request can be wrong about is checked before the quota: a key at its limit learns what
    // to fix (400/404), not merely that it is at its limit (456).
    const resources = namesResources(req) ? await this.resources(req, account) : NO_RESOURCES;
    const prepared = prepareTags(req); // v2: malformed XML → 400
    const counts = req.texts.map(characterCount);
    const billed = counts.reduce((a, b) => a + b, 0);
    if (!this.ledger.reserve(account.id, billed, account.limit)) {
      throw keyLimitReached();
    }
    try {
      const results = await this.run(req, resources, caller, prepared);
      this.ledger.record(account.id, tag, billed);
      // Clients need a code (deepl-node rejects an empty one). A text with nothing to translate (only
      // markup, digits) has no language of its own: it takes its neighbours' language, else EN (README).
      const fallback = results.find((r) => r.detectedSource)?.detectedSource ?? 'EN';
      return results.map((r, i) => {
        const out: TranslationOut = {
          detected_source_language: req.source ?? r.detectedSource ?? fallback,
          text: r.text,
        };
        if (req.showBilledCharacters) out.billed_characters = counts[i] ?? 0;
        // Engines without model choice run their one model; DeepL reports its own.
        if (req.modelType) out.model_type_used = r.modelTypeUsed ?? 'latency_optimized';
        // docs/translation.md#translate-response: with tag handling the answer shows the version applied.
        if (req.tags) out.tag_handling_version = req.tags.version;
        return out;
      });
    } catch (err) {
      this.ledger.release(account.id, billed);
      throw err;
    }
  }

  /**
   * Translates without touching the ledger: document jobs reserve and bill a whole document themselves
   * (as document characters). Glossaries, memories and the cache apply as for `/v2/translate`.
   */
  async translateUnbilled(req: TranslateRequest, account: Account, caller: AbortLike = STAYING) {
    if (!this.chain) throw invalid(NO_ENGINE_MESSAGE);
    return this.run(req, await this.resources(req, account), caller);
  }

  /** The glossary and memory a request names (404/400 when they do not exist or fit). */
  async resources(req: TranslateRequest, account: Account) {
    const glossary = await activeGlossary(
      this.glossaries,
      account.id,
      req.glossaryIds,
      req.source,
      req.target,
    );
    const style = activeStyle(this.styleRules, account.id, req.styleId, req.target);
    const memory = req.translationMemoryId ? await this.memoryFor(req, account) : null;
    return { glossary, memory, style };
  }

  private run(
    req: TranslateRequest,
    {
      glossary,
      memory,
      style,
    }: { glossary: ActiveGlossary | null; memory: LoadedMemory | null; style: ActiveStyle | null },
    caller: AbortLike,
    prepared = prepareTags(req),
  ): Promise<CachedTranslation[]> {
    return this.withMemory(req, prepared, memory, (r, p) => this.resolve(r, p, { glossary, style }, caller));
  }

  /**
   * The request's translation memory (spec: 404 for an unknown memory or a pair it does not cover). With
   * auto-detection the memory's own source language is assumed; its target may be the request's variant
   * or its root.
   */
  private async memoryFor(req: TranslateRequest, account: Account): Promise<LoadedMemory> {
    const id = req.translationMemoryId as string;
    const memory = await this.memories.load(account.id, id);
    const source = memory.info.source_language;
    const target = req.target.toLowerCase();
    const covered =
      (req.source === null || rootOf(req.source).toLowerCase() === source) &&
      memory.info.target_languages.some((t) => t === target || t === rootOf(req.target).toLowerCase());
    if (!covered) {
      throw notFoundError(
        `Translation memory '${id}' does not cover ${req.source ?? source} to ${req.target}.`,
      );
    }
    return memory;
  }

  /**
   * Texts the memory matches at or above the threshold are answered from it before any engine is called;
   * only the rest go on (docs/translation.md#translation-memory-matching).
   */
  private async withMemory(
    req: TranslateRequest,
    prepared: PreparedMarkup[] | null,
    memory: LoadedMemory | null,
    rest: (req: TranslateRequest, prepared: PreparedMarkup[] | null) => Promise<CachedTranslation[]>,
  ): Promise<CachedTranslation[]> {
    if (!memory) return rest(req, prepared);
    const target = req.target.toLowerCase();
    const root = rootOf(req.target).toLowerCase();
    const results: Array<CachedTranslation | undefined> = [];
    const missing: number[] = [];
    req.texts.forEach((text, i) => {
      const match = memory.index.best(text, req.translationMemoryThreshold);
      const targets = match ? memory.segments[match.index]?.targets : undefined;
      const answer = targets ? (ownValue(targets, target) ?? ownValue(targets, root)) : undefined;
      if (answer !== undefined) {
        results[i] = {
          text: answer,
          detectedSource: memory.info.source_language.toUpperCase(),
          modelTypeUsed: null,
          at: 0,
        };
      } else missing.push(i);
    });
    if (missing.length > 0) {
      const sub = { ...req, texts: missing.map((i) => req.texts[i] ?? '') };
      const answers = await rest(sub, prepared ? missing.map((i) => prepared[i] as PreparedMarkup) : null);
      missing.forEach((at, j) => {
        results[at] = answers[j];
      });
    }
    return results as CachedTranslation[];
  }

  /**
   * Cached texts come from memory; a text another request is already translating with the same options
   * joins that call (a burst of identical announcements makes one upstream call); the rest go to the chain
   * in one new call that later identical texts can join.
   */
  private async resolve(
    req: TranslateRequest,
    prepared: PreparedMarkup[] | null,
    applied: Applied,
    caller: AbortLike,
  ): Promise<CachedTranslation[]> {
    const prefix = `${optionsKey(req, applied.glossary, applied.style)}\u0000`;
    const now = Date.now();
    const results: Array<CachedTranslation | undefined> = [];
    /** Each call this request waits for, with [place in this request, place in the call's batch]. */
    const waits = new Map<SharedCall<CachedTranslation[]>, Array<[number, number]>>();
    const wait = (call: SharedCall<CachedTranslation[]>, at: number, index: number) => {
      const places = waits.get(call);
      if (places) places.push([at, index]);
      else waits.set(call, [[at, index]]);
    };
    const missing: number[] = [];
    req.texts.forEach((text, i) => {
      const key = prefix + text;
      const hit = this.cache.get(key, now);
      if (hit) results[i] = hit;
      else {
        const running = this.inFlight.get(key);
        if (running) wait(running.call, i, running.index);
        else missing.push(i);
      }
    });
    if (missing.length > 0) {
      const keys = missing.map((i) => prefix + (req.texts[i] ?? ''));
      const forget = () => {
        for (const key of keys) if (this.inFlight.get(key)?.call === call) this.inFlight.delete(key);
      };
      // Forgotten when abandoned, and once done (a later request finds the cache, or starts afresh).
      const call: SharedCall<CachedTranslation[]> = new SharedCall(
        (signal) => this.translateBatch(req, prepared, applied, missing, prefix, now, signal),
        forget,
        this.stopping,
        forget,
      );
      keys.forEach((key, j) => {
        if (!this.inFlight.has(key)) this.inFlight.set(key, { call, index: j });
        wait(call, missing[j] ?? 0, j);
      });
    }
    if (waits.size === 0) return results as CachedTranslation[];
    // This request leaves every call it joined when its client goes, and also once it has its answer
    // (or its first error): a call it no longer needs must not count it as a waiter.
    const leave = new Cancellation();
    const gone = () => leave.abort(caller.reason);
    caller.addEventListener('abort', gone, { once: true });
    try {
      if (waits.size === 1) {
        // The usual case (one new call, or one joined): no per-call closure and no Promise.all.
        for (const [call, places] of waits) {
          const entries = await call.join(leave);
          for (const [at, index] of places) results[at] = entries[index];
        }
      } else {
        await Promise.all(
          [...waits].map(async ([call, places]) => {
            const entries = await call.join(leave);
            for (const [at, index] of places) results[at] = entries[index];
          }),
        );
      }
      return results as CachedTranslation[];
    } finally {
      caller.removeEventListener('abort', gone);
      leave.abort(ANSWERED); // a constant: an Error per request would capture a stack for nothing
    }
  }

  private async translateBatch(
    req: TranslateRequest,
    prepared: PreparedMarkup[] | null,
    { glossary, style }: Applied,
    missing: number[],
    prefix: string,
    now: number,
    signal: AbortLike,
  ): Promise<CachedTranslation[]> {
    const chain = this.chain!;
    const texts = missing.map((i) => req.texts[i] ?? '');
    const answer = await chain.translate(
      {
        texts,
        source: req.source,
        target: req.target,
        formality: req.formality,
        context: req.context,
        customInstructions: req.customInstructions,
        modelType: req.modelType,
        splitSentences: req.splitSentences,
        preserveFormatting: req.preserveFormatting,
        tags: req.tags,
        glossary,
        style,
        prepared: prepared ? missing.map((i) => prepared[i]!) : null,
      },
      signal,
    );
    return texts.map((text, j) => {
      const t = answer.result.translations[j];
      const entry = {
        text: t?.text ?? '',
        detectedSource: t?.detectedSource ?? null,
        modelTypeUsed: answer.result.modelTypeUsed,
        at: now,
      };
      this.cache.set(prefix + text, entry);
      return entry;
    });
  }
}

/** The texts' markup parsed for tag handling (null without it); tag_handling_version v2 refuses malformed XML. */
function prepareTags(req: TranslateRequest): PreparedMarkup[] | null {
  const tags = req.tags;
  return tags ? req.texts.map((t) => prepareMarkup(t, tags)) : null;
}
