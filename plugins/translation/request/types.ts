export type Formality = 'default' | 'more' | 'less' | 'prefer_more' | 'prefer_less';
export type ModelType = 'quality_optimized' | 'prefer_quality_optimized' | 'latency_optimized';
export type SplitSentences = '0' | '1' | 'nonewlines';
export type TagHandling = 'xml' | 'html';

/** Tag-handling options, present only when `tag_handling` was sent. */
export interface TagOptions {
  mode: TagHandling;
  version: 'v1' | 'v2';
  outlineDetection: boolean;
  splittingTags: string[];
  nonSplittingTags: string[];
  ignoreTags: string[];
}

/** A validated `POST /v2/translate` request (codes upper-cased). */
export interface TranslateRequest {
  texts: string[];
  source: string | null;
  target: string;
  context: string | null;
  showBilledCharacters: boolean;
  splitSentences: SplitSentences | null;
  preserveFormatting: boolean;
  formality: Formality | null;
  modelType: ModelType | null;
  glossaryIds: string[];
  styleId: string | null;
  translationMemoryId: string | null;
  /** 3.13.0: a value below 50 is treated as 50. */
  translationMemoryThreshold: number;
  customInstructions: string[];
  tags: TagOptions | null;
}
