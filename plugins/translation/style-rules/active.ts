import { invalid } from '../errors.ts';
import { rootOf } from '../languages.ts';
import type { ConfiguredRules, CustomInstruction } from './params.ts';
import { type StyleRuleStore, styleDigest } from './store.ts';

/** The style rule list a translate request applies (docs/translation.md#style-rules). */
export interface ActiveStyle {
  styleId: string;
  /** Language, rules and instructions: identical content shares a cache key and an upstream copy. */
  digest: string;
  /** `account\tstyle id` (a change to the list retires the upstream copies made from it). */
  refs: string[];
  language: string;
  configuredRules: ConfiguredRules;
  instructions: CustomInstruction[];
}

const digests = new Map<string, string>();
const MAX_DIGESTS = 256;

/**
 * Resolves `style_id` for a target: unknown (or another account's) → 404; a list made for a root language
 * serves that language and all its variants, a list made for a variant serves only that variant (spec);
 * any other target → 400.
 */
export function activeStyle(
  store: StyleRuleStore,
  account: string,
  styleId: string | null,
  target: string,
): ActiveStyle | null {
  if (!styleId) return null;
  const list = store.peek(account, styleId);
  const language = list.language.toUpperCase();
  const fits = language.includes('-') ? target === language : rootOf(target) === language;
  if (!fits) {
    throw invalid(
      `Style rule list '${styleId}' is for language '${list.language}', which does not match target_lang '${target}'.`,
    );
  }
  // The digest of a version is computed once (a list may hold 200 instructions of 300 characters).
  const key = `${account}\t${styleId}\t${list.version}`;
  const known = digests.get(key);
  const digest = known ?? styleDigest(list);
  if (!known) {
    if (digests.size >= MAX_DIGESTS) digests.delete(digests.keys().next().value as string);
    digests.set(key, digest);
  }
  return {
    styleId,
    digest,
    refs: [`${account}\t${styleId}`],
    language: list.language,
    configuredRules: list.configured_rules,
    instructions: list.custom_instructions,
  };
}
