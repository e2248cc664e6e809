import { invalid, notSupported } from '../errors.ts';
import { keyedRecord, ownValue, setOwn } from '../own.ts';

/**
 * Validation of style rule lists (docs/translation.md#style-rules). Bodies are JSON (the clients send
 * nothing else for these paths); every field is checked before anything is stored.
 */

/** Languages a style rule list can be made for: these roots, or a variant of one of them. */
const ROOTS = new Set(['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh']);
const VARIANTS = new Map([
  ['en-gb', 'en-GB'],
  ['en-us', 'en-US'],
  ['es-419', 'es-419'],
  ['zh-hans', 'zh-Hans'],
  ['zh-hant', 'zh-Hant'],
]);

export const CATEGORIES = [
  'dates_and_times',
  'formatting',
  'numbers',
  'punctuation',
  'spelling_and_grammar',
  'style_and_tone',
  'vocabulary',
] as const;

export const MAX_INSTRUCTIONS = 200;
export const MAX_LABEL_CHARS = 100;
export const MAX_PROMPT_CHARS = 300;
/** Names: the same bound as glossary names. */
export const MAX_NAME_BYTES = 1024;
/** An option name or value inside a category (option names such as `calendar_era`). */
const OPTION = /^[a-z0-9_]{1,100}$/;

export type ConfiguredRules = Record<string, Record<string, string>>;

export interface CustomInstruction {
  id: string;
  label: string;
  prompt: string;
  source_language?: string;
}

const chars = (s: string) => [...s].length;

/** `en`, `EN`, `en-gb` → `en`, `en`, `en-GB`; anything else is refused. */
export function styleLanguage(value: unknown, param = 'language'): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`Parameter '${param}' not specified.`);
  const lower = value.trim().toLowerCase();
  if (ROOTS.has(lower)) return lower;
  const variant = VARIANTS.get(lower);
  if (variant) return variant;
  throw notSupported(param);
}

export function styleName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid("Parameter 'name' not specified.");
  if (Buffer.byteLength(value) > MAX_NAME_BYTES) {
    throw invalid(`Parameter 'name' may be at most ${MAX_NAME_BYTES} bytes.`);
  }
  if (/[\p{Cc}\u2028\u2029]/u.test(value)) throw invalid("Parameter 'name' contains a control character.");
  return value;
}

/** `{category: {option: value}}` with known categories only. */
export function configuredRules(value: unknown): ConfiguredRules {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid("Parameter 'configured_rules' must be an object of categories.");
  }
  const rules = keyedRecord<Record<string, string>>();
  for (const [category, options] of Object.entries(value)) {
    if (!(CATEGORIES as readonly string[]).includes(category)) {
      throw invalid(`Unknown configured_rules category '${category}' (one of ${CATEGORIES.join(', ')}).`);
    }
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw invalid(`configured_rules.${category} must be an object of options.`);
    }
    const checked = keyedRecord<string>();
    for (const [option, choice] of Object.entries(options as Record<string, unknown>)) {
      if (!OPTION.test(option) || typeof choice !== 'string' || !OPTION.test(choice)) {
        throw invalid(
          `configured_rules.${category}: option '${option}' needs a value such as 'use_bc_and_ad'.`,
        );
      }
      setOwn(checked, option, choice);
    }
    setOwn(rules, category, checked);
  }
  return rules;
}

/** One custom instruction (its id is given by the store). */
export function instruction(value: unknown): Omit<CustomInstruction, 'id'> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('A custom instruction must be an object with label and prompt.');
  }
  const record = value as Record<string, unknown>;
  const label = ownValue(record, 'label');
  const prompt = ownValue(record, 'prompt');
  if (typeof label !== 'string' || label.trim() === '') throw invalid("Parameter 'label' not specified.");
  if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid("Parameter 'prompt' not specified.");
  if (chars(label) > MAX_LABEL_CHARS) {
    throw invalid(`Parameter 'label' may be at most ${MAX_LABEL_CHARS} characters.`);
  }
  if (chars(prompt) > MAX_PROMPT_CHARS) {
    throw invalid(`Parameter 'prompt' may be at most ${MAX_PROMPT_CHARS} characters.`);
  }
  const source = ownValue(record, 'source_language');
  const out: Omit<CustomInstruction, 'id'> = { label, prompt };
  if (source !== undefined && source !== null) {
    if (typeof source !== 'string' || !/^[a-z]{2,3}(-[a-z0-9]{2,4})?$/i.test(source)) {
      throw notSupported('source_language');
    }
    out.source_language = source.toLowerCase();
  }
  return out;
}

export function instructions(value: unknown): Array<Omit<CustomInstruction, 'id'>> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid("Parameter 'custom_instructions' must be a list.");
  if (value.length > MAX_INSTRUCTIONS) {
    throw invalid(`A style rule list may hold at most ${MAX_INSTRUCTIONS} custom instructions.`);
  }
  return value.map(instruction);
}
