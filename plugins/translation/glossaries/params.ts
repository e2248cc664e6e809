import { invalid, notSpecified, notSupported } from '../errors.ts';
import { resolveSource, rootOf } from '../languages.ts';
import { ownValue } from '../own.ts';
import type { RawParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import { MAX_TERM_BYTES, parseEntries } from './entries.ts';
import type { StoredDictionary } from './store.ts';

/**
 * A glossary language: dictionaries are kept per root language (`EN-GB` → `en`), so an EN, PT or ZH
 * dictionary serves every variant (spec: "a target language of EN, PT or ZH needs no variant").
 */
export function glossaryLanguage(code: string | undefined, param: string): string {
  if (code === undefined || code === '') throw notSpecified(param);
  const root = resolveSource(rootOf(code.trim()));
  if (root === null) throw notSupported(param);
  return root.toLowerCase();
}

export function glossaryName(p: ParamReader, required: boolean): string | undefined {
  const name = p.string('name');
  if (name === undefined || name === '') {
    if (required) throw notSpecified('name');
    return undefined;
  }
  if (Buffer.byteLength(name) > MAX_TERM_BYTES) {
    throw invalid(`Value for 'name' not supported (at most ${MAX_TERM_BYTES} UTF-8 bytes).`);
  }
  return name;
}

/** One dictionary from flat parameters (`source_lang`, `target_lang`, `entries`, `entries_format`). */
export function dictionaryFrom(p: ParamReader, prefix = ''): StoredDictionary {
  const source = glossaryLanguage(p.string(`${prefix}source_lang`), `${prefix}source_lang`);
  const target = glossaryLanguage(p.string(`${prefix}target_lang`), `${prefix}target_lang`);
  if (source === target) throw invalid('A dictionary needs two different languages.');
  const entries = p.string(`${prefix}entries`);
  if (entries === undefined) throw notSpecified(`${prefix}entries`);
  const format = p.string(`${prefix}entries_format`) ?? 'tsv';
  return {
    source_lang: source,
    target_lang: target,
    entries: [...parseEntries(entries, format, source, target)],
  };
}

/**
 * `dictionaries` as JSON sends it (an array of objects) or as deepl-node's form sends it
 * (`dictionaries[0].source_lang=…&dictionaries[0].entries=…`).
 */
export function dictionariesFrom(raw: RawParams): StoredDictionary[] | undefined {
  let readers: ParamReader[];
  if (raw.kind === 'json') {
    const list = ownValue(raw.values, 'dictionaries');
    if (list === undefined || list === null) return undefined;
    if (!Array.isArray(list) || list.some((d) => d === null || typeof d !== 'object' || Array.isArray(d))) {
      throw notSupported('dictionaries');
    }
    readers = list.map((d) => new ParamReader({ kind: 'json', values: d as Record<string, unknown> }));
  } else {
    const byIndex = new Map<number, Map<string, string[]>>();
    for (const [name, values] of raw.values) {
      const m = /^dictionaries\[(\d{1,4})\]\.(\w+)$/.exec(name);
      if (!m) {
        if (name.startsWith('dictionaries')) throw notSupported(name);
        continue;
      }
      const index = Number(m[1]);
      const fields = byIndex.get(index) ?? new Map<string, string[]>();
      byIndex.set(index, fields);
      fields.set(m[2] as string, values);
    }
    if (byIndex.size === 0) return undefined;
    readers = [...byIndex.keys()]
      .sort((a, b) => a - b)
      .map((i) => new ParamReader({ kind: 'form', values: byIndex.get(i) as Map<string, string[]> }));
  }
  const dictionaries = readers.map((r) => dictionaryFrom(r));
  const pairs = new Set(dictionaries.map((d) => `${d.source_lang}>${d.target_lang}`));
  if (pairs.size !== dictionaries.length) {
    throw invalid('Each dictionary of a glossary needs its own language pair.');
  }
  return dictionaries;
}
