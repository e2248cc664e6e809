import type { AbortLike } from '../cancellation.ts';
import type { ActiveGlossary } from '../glossaries/active.ts';
import type { Terms } from '../glossaries/enforce.ts';
import type { Formality, ModelType, SplitSentences, TagOptions } from '../request/types.ts';
import type { ActiveStyle } from '../style-rules/active.ts';

/** What one engine call carries. Codes are DeepL's, upper-cased; the engine maps them to its own. */
export interface EngineJob {
  texts: string[];
  source: string | null;
  target: string;
  formality: Formality | null;
  context: string | null;
  customInstructions: string[];
  modelType: ModelType | null;
  splitSentences: SplitSentences | null;
  preserveFormatting: boolean;
  /** Set only for engines with native tag handling; others get plain text runs (see tags/). */
  tags: TagOptions | null;
  /** The request's glossary; engines with native glossaries get it, others get `glossaryTerms` or `html`. */
  glossary?: ActiveGlossary | null;
  /** Glossary pairs an LLM must use (prompt constraints). */
  glossaryTerms?: Terms;
  /** The texts are HTML with glossary placeholders (LibreTranslate's `format: html`). */
  html?: boolean;
  /** The request's style rule list (`style_id`): DeepL gets an upstream copy, an LLM the rules in its prompt. */
  style?: ActiveStyle | null;
}

/** A rephrase or correct call (docs/translation.md#rephrase-and-correct). */
export interface ImproveJob {
  kind: 'rephrase' | 'correct';
  texts: string[];
  /** As the API spells it (`en-US`); null = keep each text's language. */
  target: string | null;
  writingStyle: string | null;
  tone: string | null;
}

export interface Improvement {
  text: string;
  /** Lower-case code (`en`), or null when the engine could not tell. */
  detectedSource: string | null;
}

export interface EngineTranslation {
  text: string;
  /** Upper-case DeepL code, or null when the engine could not tell. */
  detectedSource: string | null;
}

export interface EngineResult {
  translations: EngineTranslation[];
  modelTypeUsed: ModelType | null;
}

/** What an engine can honour; the chain skips engines that cannot honour a request's parameters. */
export interface EngineCapabilities {
  tags: boolean;
  /** `formality=more|less` (the `prefer_*` values are hints and never skip an engine). */
  formality: boolean;
  customInstructions: boolean;
  /** `model_type=quality_optimized` (strict). */
  qualityModel: boolean;
  /** How glossaries are honoured: upstream glossaries, placeholders kept through HTML, or the prompt. */
  glossary: 'native' | 'placeholders' | 'prompt';
  /** How style rule lists are honoured; null = cannot (the chain skips the engine for `style_id`). */
  styleRules: 'native' | 'prompt' | null;
}

/** Languages an engine serves, as DeepL codes. */
export interface LanguageSupport {
  sources: ReadonlySet<string>;
  targets: ReadonlySet<string>;
  /** Targets on which formality can be honoured. */
  formality: ReadonlySet<string>;
  /** Whether the pair is served (`source` null = auto-detect). */
  serves(source: string | null, target: string): boolean;
}

export interface Engine {
  readonly id: string;
  readonly type: 'deepl' | 'libretranslate' | 'openai';
  readonly capabilities: EngineCapabilities;
  /** How long one attempt at this engine may take (all its upstream calls together) before failing over. */
  readonly timeoutMs: number;
  /**
   * Cached; refreshed from the upstream when it exposes its languages. With `maxWaitMs` (routing) it never
   * waits longer than that for an upstream that has not answered yet.
   */
  languages(opts?: { maxWaitMs?: number }): Promise<LanguageSupport>;
  translate(job: EngineJob, signal: AbortLike): Promise<EngineResult>;
  /** Rephrase or correct; absent when the engine cannot (the chain skips it). */
  improve?(job: ImproveJob, signal: AbortLike): Promise<Improvement[]>;
  /** A local glossary changed or went (`account\tglossary id`): upstream copies made from it are retired. */
  glossaryChanged?(ref: string): void;
  /** A local style rule list changed or went (`account\tstyle id`): upstream copies made from it are retired. */
  styleChanged?(ref: string): void;
  /** Deletes upstream glossary and style rule copies an earlier run left behind (called once at start). */
  cleanupGlossaries?(): Promise<void>;
  close(): void;
}

/**
 * Why an upstream call failed, which decides failover and the status the client sees:
 * `quota` → 456, `transient` → 429/503, `unsupported` → try the next engine, `rejected` → 400,
 * `invalid_response` → the engine misbehaved (503 when nothing else answers).
 */
export type UpstreamErrorKind = 'quota' | 'transient' | 'unsupported' | 'rejected' | 'invalid_response';

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  /** 429 when the upstream itself said "too many requests". */
  readonly status: number | undefined;

  constructor(kind: UpstreamErrorKind, message: string, status?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export interface EngineConfig {
  id: string;
  type: Engine['type'];
  url: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  languages: string[];
}
