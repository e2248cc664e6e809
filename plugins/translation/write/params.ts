import { invalid, notSpecified, notSupported } from '../errors.ts';
import type { RawParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';

/** `rephrase` improves style and tone; `correct` fixes spelling and grammar only. */
export type ImproveKind = 'rephrase' | 'correct';

export const WRITING_STYLES = [
  'academic',
  'business',
  'casual',
  'default',
  'simple',
  'prefer_academic',
  'prefer_business',
  'prefer_casual',
  'prefer_simple',
] as const;
export const TONES = [
  'confident',
  'default',
  'diplomatic',
  'enthusiastic',
  'friendly',
  'prefer_confident',
  'prefer_diplomatic',
  'prefer_enthusiastic',
  'prefer_friendly',
] as const;

export type WritingStyle = (typeof WRITING_STYLES)[number];
export type Tone = (typeof TONES)[number];

/**
 * The languages text improvement serves, as the API spells them in answers (`target_language`): DeepL
 * answers a plain `en` as `en-US` and `pt` as `pt-PT`, the variants it writes.
 */
const TARGETS = new Map(
  ['de', 'en-GB', 'en-US', 'es', 'fr', 'it', 'ja', 'ko', 'pt-BR', 'pt-PT', 'zh', 'zh-Hans'].map((code) => [
    code.toLowerCase(),
    code,
  ]),
);
TARGETS.set('en', 'en-US');
TARGETS.set('pt', 'pt-PT');

/** `target_language` of an answer: the target asked for, else the text's own language in DeepL's spelling. */
export const answerLanguage = (code: string): string => TARGETS.get(code.toLowerCase()) ?? code;

export interface ImproveRequest {
  kind: ImproveKind;
  texts: string[];
  /** As the API spells it (`en-US`); null = keep each text's own language. */
  target: string | null;
  /** Null when not given or `default` (nothing to ask for). */
  writingStyle: WritingStyle | null;
  tone: Tone | null;
}

/** The parameters of `/v2/write/rephrase` and `/v2/write/correct` (docs/translation.md#rephrase-and-correct). */
export function parseImproveRequest(kind: ImproveKind, raw: RawParams): ImproveRequest {
  const p = new ParamReader(raw);
  const texts = p.list('text', false);
  if (!texts || texts.length === 0) throw notSpecified('text');
  if (texts.length > 50) throw invalid("Parameter 'text' accepts at most 50 texts.");
  const code = p.string('target_lang');
  let target: string | null = null;
  if (code !== undefined && code !== '') {
    target = TARGETS.get(code.trim().toLowerCase()) ?? null;
    if (target === null) throw notSupported('target_lang');
  }
  let writingStyle: WritingStyle | null = null;
  let tone: Tone | null = null;
  if (kind === 'rephrase') {
    writingStyle = p.oneOf('writing_style', WRITING_STYLES) ?? null;
    tone = p.oneOf('tone', TONES) ?? null;
    if (writingStyle === 'default') writingStyle = null;
    if (tone === 'default') tone = null;
    // Style and tone pull the text different ways; DeepL takes one or the other.
    if (writingStyle && tone)
      throw invalid(
        'Bad request. Reason: Both writing_style and tone defined. Currently only style OR tone can be chosen for a single request.',
      );
  } else {
    for (const name of ['writing_style', 'tone']) {
      if (p.has(name)) throw invalid(`Parameter '${name}' is not supported by /v2/write/correct.`);
    }
  }
  return { kind, texts, target, writingStyle, tone };
}
