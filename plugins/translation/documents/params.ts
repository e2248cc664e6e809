import { normalizeCode } from '../languages.ts';
import type { RawParams } from '../request/body.ts';
import { parseTranslateRequest } from '../request/translate-params.ts';
import type { TranslateRequest } from '../request/types.ts';

/** The form fields of `POST /v2/document` that shape the translation (the file and its name aside). */
export const TRANSLATION_FIELDS = [
  'source_lang',
  'target_lang',
  'formality',
  'glossary_id',
  'glossary_ids',
  'style_id',
  'translation_memory_id',
  'translation_memory_threshold',
  'context',
  'custom_instructions',
  'model_type',
];

/**
 * The document's parameters as a translate request: the same names, rules and 400s as `/v2/translate`
 * (the texts are filled in per batch). Also used at upload, so a bad parameter is refused at once.
 */
export function documentRequest(params: Record<string, string[]>): TranslateRequest {
  const values = new Map<string, string[]>();
  for (const name of TRANSLATION_FIELDS) {
    const v = Object.hasOwn(params, name) ? params[name] : undefined;
    if (v && v.length > 0) values.set(name, v);
  }
  values.set('text', ['-']);
  const raw: RawParams = { kind: 'form', values };
  return parseTranslateRequest(raw);
}

/**
 * The target language as the client named it (`EN`, `EN-GB`), before `EN` is read as `EN-US`. DeepL fails a
 * document whose source is this language ("Source and target language are equal"); a variant of the
 * source (EN to EN-GB) is a conversion and is translated.
 */
export function givenTarget(params: Record<string, string[]>): string {
  const v = Object.hasOwn(params, 'target_lang') ? params.target_lang?.[0] : undefined;
  return v ? normalizeCode(v) : '';
}
