import { createHash } from 'node:crypto';
import { invalid } from '../errors.ts';
import { rootOf } from '../languages.ts';
import type { GlossaryStore } from './store.ts';

/** The glossary terms that apply to one translate request (one language pair, several glossaries merged). */
export interface ActiveGlossary {
  /** Lower-case root codes of the pair. */
  source: string;
  target: string;
  entries: ReadonlyArray<readonly [string, string]>;
  /** A digest of pair and entries: identical content shares a cache key and an upstream mirror. */
  digest: string;
  /** `account\tglossary id` of each glossary used (a change to one retires the mirrors built from it). */
  refs: string[];
}

/** Recently resolved glossaries by account, ids, revisions and pair: a large glossary is merged and hashed once. */
const resolved = new Map<string, ActiveGlossary>();
const MAX_RESOLVED = 64;

/**
 * Resolves `glossary_id`/`glossary_ids` for a pair: an unknown id is 404 (as for a translation memory);
 * a glossary without a dictionary for the pair is 400 (spec: the pair must match). With several glossaries
 * the first one that defines a source term wins.
 */
export async function activeGlossary(
  store: GlossaryStore,
  account: string,
  ids: string[],
  source: string | null,
  target: string,
): Promise<ActiveGlossary | null> {
  if (ids.length === 0 || source === null) return null;
  const from = rootOf(source).toLowerCase();
  const to = rootOf(target).toLowerCase();
  const dictionaries = [];
  for (const id of ids) {
    const glossary = await store.get(account, id);
    const dictionary = glossary.dictionaries.find((d) => d.source_lang === from && d.target_lang === to);
    if (!dictionary) {
      throw invalid(`Glossary '${id}' has no dictionary for ${from} to ${to} (source_lang, target_lang).`);
    }
    dictionaries.push({ id, revision: glossary.revision, dictionary });
  }
  const cacheKey = JSON.stringify([account, from, to, dictionaries.map((d) => [d.id, d.revision])]);
  const known = resolved.get(cacheKey);
  if (known) return known;
  const merged = new Map<string, string>();
  for (const { dictionary } of dictionaries) {
    for (const [s, t] of dictionary.entries) if (!merged.has(s)) merged.set(s, t);
  }
  const entries = [...merged];
  const hash = createHash('sha256').update(`${from}\t${to}\n`);
  for (const [s, t] of entries) hash.update(`${s}\t${t}\n`);
  const active: ActiveGlossary = {
    source: from,
    target: to,
    entries,
    digest: hash.digest('hex'),
    refs: ids.map((id) => `${account}\t${id}`),
  };
  if (resolved.size >= MAX_RESOLVED) resolved.delete(resolved.keys().next().value as string);
  resolved.set(cacheKey, active);
  return active;
}
