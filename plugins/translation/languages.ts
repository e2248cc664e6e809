/**
 * The language codes the DeepL API accepts (docs/translation.md#languages, synced from the live API by the DeepL
 * mock v1.21.0). Which of them Hearth can actually serve depends on the configured engines.
 */
const SOURCE_CODES = (
  'AF AN AR AS AY AZ BA BE BG BN BR BS CA CS CY DA DE EL EN EO ES ET EU FA FI FR GA GL GN GU HA HE HI HR ' +
  'HT HU HY ID IG IS IT JA JV KA KK KO KY LA LB LN LT LV MG MI MK ML MN MR MS MT MY NB NE NL OC OM PA PL ' +
  'PS PT QU RO RU SA SK SL SQ SR ST SU SV SW TA TE TG TH TK TL TN TR TS TT UK UR UZ VI WO XH YI ZH ZU'
).split(' ');

const TARGET_VARIANTS = ['EN-GB', 'EN-US', 'ES-419', 'PT-BR', 'PT-PT', 'ZH-HANS', 'ZH-HANT'];

export const SOURCE_LANGUAGES: ReadonlySet<string> = new Set(SOURCE_CODES);
export const TARGET_LANGUAGES: ReadonlySet<string> = new Set([
  ...SOURCE_CODES.filter((c) => c !== 'EN' && c !== 'PT'),
  ...TARGET_VARIANTS,
]);

/** Targets on which `formality=more|less` is allowed (docs/translation.md#languages, matching DeepL's documentation). */
export const FORMALITY_TARGETS: ReadonlySet<string> = new Set([
  'DE',
  'ES',
  'ES-419',
  'FR',
  'IT',
  'JA',
  'NL',
  'PL',
  'PT-BR',
  'PT-PT',
  'RU',
]);

/** spec: custom_instructions need a target of de, en, es, fr, it, ja, ko, zh or a variant of these. */
const INSTRUCTION_ROOTS = new Set(['DE', 'EN', 'ES', 'FR', 'IT', 'JA', 'KO', 'ZH']);

/** Deprecated bare targets the real API still accepts, mapped to the variant it uses. */
const TARGET_ALIASES = new Map([
  ['EN', 'EN-GB'],
  ['PT', 'PT-PT'],
]);

/** Upper-cases a code (codes are case-insensitive on the wire: deepl-node sends `de`, `en-US`). */
export const normalizeCode = (code: string): string => code.trim().toUpperCase();

export function resolveTarget(code: string): string | null {
  const upper = normalizeCode(code);
  if (TARGET_LANGUAGES.has(upper)) return upper;
  return TARGET_ALIASES.get(upper) ?? null;
}

export function resolveSource(code: string): string | null {
  const upper = normalizeCode(code);
  return SOURCE_LANGUAGES.has(upper) ? upper : null;
}

/** `EN-GB` → `EN`. */
export const rootOf = (code: string): string => code.split('-')[0] ?? code;

export const acceptsCustomInstructions = (target: string): boolean => INSTRUCTION_ROOTS.has(rootOf(target));

const DEEPL_NAMES = new Map([
  ['EN-GB', 'English (British)'],
  ['EN-US', 'English (American)'],
  ['ES-419', 'Spanish (Latin American)'],
  ['PT-BR', 'Portuguese (Brazilian)'],
  ['PT-PT', 'Portuguese (European)'],
  ['ZH-HANS', 'Chinese (simplified)'],
  ['ZH-HANT', 'Chinese (traditional)'],
]);

let displayNames: Intl.DisplayNames | undefined;

/** English name of a code, the way `/v2/languages` shows it. */
export function languageName(code: string): string {
  const special = DEEPL_NAMES.get(code);
  if (special) return special;
  displayNames ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
  return displayNames.of(code.toLowerCase()) ?? code;
}
