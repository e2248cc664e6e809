import { invalid, notSpecified, notSupported } from '../errors.ts';
import { acceptsCustomInstructions, FORMALITY_TARGETS, resolveSource, resolveTarget } from '../languages.ts';
import type { RawParams } from './body.ts';
import { ParamReader } from './param-reader.ts';
import type { Formality, ModelType, SplitSentences, TagOptions, TranslateRequest } from './types.ts';

/** docs/translation.md#transport-and-authentication: up to 50 `text` values per request. */
export const MAX_TEXTS = 50;
const MAX_GLOSSARIES = 5; // spec Limits: glossary IDs per request
const MAX_INSTRUCTIONS = 10; // spec Limits: custom instructions
const MAX_INSTRUCTION_CHARS = 300;

const FORMALITIES: readonly Formality[] = ['default', 'more', 'less', 'prefer_more', 'prefer_less'];
const MODEL_TYPES: readonly ModelType[] = [
  'quality_optimized',
  'prefer_quality_optimized',
  'latency_optimized',
];
const SPLITS: readonly SplitSentences[] = ['0', '1', 'nonewlines'];

/**
 * Validates every rule of `POST /v2/translate` (spec + docs/translation.md#translate-parameters); each 400 names its parameter.
 *
 * "JSON only" (spec: `style_id`, `tag_handling_version`, `custom_instructions`): the OpenAPI lists them in
 * the JSON body only, but the official client sends them in its form (deepl-node 1.28
 * `validateAndAppendTextOptions`: one `style_id`, one `tag_handling_version`, repeated
 * `custom_instructions`) and the real API serves that client. Hearth accepts them in that form shape; the
 * types, enumerations and limits apply to both encodings (README "Request bodies").
 */
export function parseTranslateRequest(raw: RawParams): TranslateRequest {
  const p = new ParamReader(raw);
  const texts = p.list('text', false);
  if (texts === undefined || texts.length === 0) throw notSpecified('text');
  if (texts.length > MAX_TEXTS) throw invalid(`Too many 'text' values: at most ${MAX_TEXTS} per request.`);

  const targetCode = p.string('target_lang');
  if (targetCode === undefined || targetCode === '') throw notSpecified('target_lang');
  const target = resolveTarget(targetCode);
  if (target === null) throw notSupported('target_lang');

  const sourceCode = p.string('source_lang');
  const source = sourceCode ? resolveSource(sourceCode) : null;
  if (sourceCode && source === null) throw notSupported('source_lang');

  const formality = p.oneOf('formality', FORMALITIES) ?? null;
  if ((formality === 'more' || formality === 'less') && !FORMALITY_TARGETS.has(target)) {
    throw invalid(`Target language '${target}' doesn't support formality.`);
  }

  p.boolean('enable_beta_languages'); // deprecated, no effect (spec Versioning); still type-checked

  return {
    texts,
    source,
    target,
    context: p.string('context') ?? null,
    showBilledCharacters: p.boolean('show_billed_characters') ?? false,
    splitSentences: p.oneOf('split_sentences', SPLITS) ?? null,
    preserveFormatting: p.boolean('preserve_formatting') ?? false,
    formality,
    modelType: p.oneOf('model_type', MODEL_TYPES) ?? null,
    glossaryIds: glossaries(p, source),
    styleId: p.string('style_id') ?? null,
    translationMemoryId: p.string('translation_memory_id') || null,
    translationMemoryThreshold: threshold(p),
    customInstructions: instructions(p, target),
    tags: tagOptions(p),
  };
}

/** spec: glossary_id xor glossary_ids (≤ 5), both need source_lang. */
function glossaries(p: ParamReader, source: string | null): string[] {
  const single = p.string('glossary_id');
  const many = p.list('glossary_ids', true);
  if (single !== undefined && many !== undefined) {
    throw invalid("Parameters 'glossary_id' and 'glossary_ids' cannot be used together.");
  }
  if (many !== undefined && many.length > MAX_GLOSSARIES) {
    throw invalid(`Parameter 'glossary_ids' accepts at most ${MAX_GLOSSARIES} glossary IDs.`);
  }
  const ids = single ? [single] : (many ?? []);
  if (ids.length > 0 && source === null) {
    throw invalid("Parameter 'source_lang' is required when a glossary is used.");
  }
  return ids;
}

/** docs/translation.md#translate-parameters: 0–100, default 75; 3.13.0: below 50 is treated as 50. */
function threshold(p: ParamReader): number {
  const text = p.string('translation_memory_threshold');
  if (text === undefined) return 75;
  if (!/^\d{1,3}$/.test(text) || Number(text) > 100) throw notSupported('translation_memory_threshold');
  return Math.max(50, Number(text));
}

/** spec: ≤ 10 items of ≤ 300 characters; target de/en/es/fr/it/ja/ko/zh or a variant. */
function instructions(p: ParamReader, target: string): string[] {
  const list = p.list('custom_instructions', false) ?? [];
  if (list.length === 0) return list;
  if (list.length > MAX_INSTRUCTIONS) {
    throw invalid(`Parameter 'custom_instructions' accepts at most ${MAX_INSTRUCTIONS} instructions.`);
  }
  if (list.some((item) => [...item].length > MAX_INSTRUCTION_CHARS)) {
    throw invalid(`Each of 'custom_instructions' may be at most ${MAX_INSTRUCTION_CHARS} characters.`);
  }
  if (!acceptsCustomInstructions(target)) {
    throw invalid(
      `Parameter 'custom_instructions' is not supported for target language '${target}' ` +
        '(allowed: de, en, es, fr, it, ja, ko, zh and their variants).',
    );
  }
  return list;
}

function tagOptions(p: ParamReader): TagOptions | null {
  const mode = p.oneOf('tag_handling', ['xml', 'html'] as const);
  const versionText = p.string('tag_handling_version') ?? null;
  if (versionText !== null && versionText !== 'v1' && versionText !== 'v2') {
    throw notSupported('tag_handling_version');
  }
  const outlineDetection = p.boolean('outline_detection') ?? true;
  const splittingTags = p.list('splitting_tags', true) ?? [];
  const nonSplittingTags = p.list('non_splitting_tags', true) ?? [];
  const ignoreTags = p.list('ignore_tags', true) ?? [];
  if (mode === undefined) return null;
  return {
    mode,
    version: versionText ?? 'v2',
    outlineDetection,
    splittingTags,
    nonSplittingTags,
    ignoreTags,
  };
}
