import { createHash, randomUUID } from 'node:crypto';
import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { invalid, notFoundError } from '../errors.ts';
import { keyedRecord, ownValue, setOwn } from '../own.ts';
import { type Entries, entriesBytes } from './entries.ts';

/** spec Limits: glossaries per account and bytes per glossary. */
export const MAX_GLOSSARIES = 1000;
export const MAX_GLOSSARY_BYTES = 10 * 1024 * 1024;

export interface StoredDictionary {
  /** Lower-case root codes (`en`, `de`): a dictionary serves every variant of its languages. */
  source_lang: string;
  target_lang: string;
  entries: Array<[string, string]>;
}

export interface StoredGlossary {
  glossary_id: string;
  name: string;
  creation_time: string;
  dictionaries: StoredDictionary[];
  /** Bumped by every change: part of the translation cache key and of upstream mirrors' identity. */
  revision: number;
}

interface AccountDoc {
  glossaries: Record<string, StoredGlossary>;
}

/** A dictionary as the v3 API lists it. */
export const dictionaryInfo = (d: StoredDictionary) => ({
  source_lang: d.source_lang,
  target_lang: d.target_lang,
  entry_count: d.entries.length,
});

export const glossaryInfo = (g: StoredGlossary) => ({
  glossary_id: g.glossary_id,
  name: g.name,
  dictionaries: g.dictionaries.map(dictionaryInfo),
  creation_time: g.creation_time,
});

/** Something that must hear when a glossary changes or goes (upstream mirrors). */
export type GlossaryListener = (account: string, glossaryId: string) => void;

/**
 * Glossaries per account, one data file per account (`translation.glossaries-<hash>.json`): they can be
 * large (10 MiB each), so they stay out of the files written on every request, and one account's edits
 * never rewrite another's. Every change is durable before it is acknowledged (`commit`).
 */
export class GlossaryStore {
  private readonly docs = new Map<string, Promise<DocStore<AccountDoc>>>();
  private readonly listeners: GlossaryListener[] = [];

  constructor(private readonly store: PluginStore) {}

  onChange(listener: GlossaryListener): void {
    this.listeners.push(listener);
  }

  private doc(account: string): Promise<DocStore<AccountDoc>> {
    let doc = this.docs.get(account);
    if (!doc) {
      // The account id holds a key id or a client id: hashed, it names a file without leaking either.
      const name = `glossaries-${createHash('sha256').update(account).digest('hex').slice(0, 24)}`;
      doc = this.store.open<AccountDoc>(name, { glossaries: keyedRecord() });
      this.docs.set(account, doc);
      doc.catch(() => this.docs.delete(account));
    }
    return doc;
  }

  async list(account: string): Promise<StoredGlossary[]> {
    const doc = await this.doc(account);
    return Object.values(doc.data.glossaries).sort((a, b) => a.creation_time.localeCompare(b.creation_time));
  }

  async get(account: string, id: string): Promise<StoredGlossary> {
    const doc = await this.doc(account);
    const found = ownValue(doc.data.glossaries, id);
    if (!found) throw notFoundError(`Glossary '${id}' not found.`);
    return found;
  }

  async create(account: string, name: string, dictionaries: StoredDictionary[]): Promise<StoredGlossary> {
    const doc = await this.doc(account);
    if (Object.keys(doc.data.glossaries).length >= MAX_GLOSSARIES) {
      throw invalid(`An account may hold at most ${MAX_GLOSSARIES} glossaries.`);
    }
    checkSize(dictionaries);
    const glossary: StoredGlossary = {
      glossary_id: randomUUID(),
      name,
      creation_time: new Date().toISOString(),
      dictionaries,
      revision: 1,
    };
    await doc.commit((d) => setOwn(d.glossaries, glossary.glossary_id, glossary));
    return glossary;
  }

  /** Applies `change` to a copy; only a valid result replaces the stored glossary. */
  async change(account: string, id: string, change: (g: StoredGlossary) => void): Promise<StoredGlossary> {
    const doc = await this.doc(account);
    const current = await this.get(account, id);
    const next: StoredGlossary = structuredClone(current);
    change(next);
    checkSize(next.dictionaries);
    next.revision = current.revision + 1;
    await doc.commit((d) => setOwn(d.glossaries, id, next));
    for (const listener of this.listeners) listener(account, id);
    return next;
  }

  async delete(account: string, id: string): Promise<void> {
    const doc = await this.doc(account);
    await this.get(account, id);
    await doc.commit((d) => {
      delete d.glossaries[id];
    });
    for (const listener of this.listeners) listener(account, id);
  }

  async flush(): Promise<void> {
    await Promise.all([...this.docs.values()].map(async (d) => (await d).flush()));
  }
}

function checkSize(dictionaries: StoredDictionary[]): void {
  const bytes = dictionaries.reduce((n, d) => n + entriesBytes(d.entries), 0);
  if (bytes > MAX_GLOSSARY_BYTES)
    throw invalid('A glossary may hold at most 10 MiB (10485760 bytes) of entries.');
}

/** Merges `added` into a dictionary's entries: a source term already present takes the new target. */
export function mergeEntries(into: StoredDictionary, added: Entries): void {
  const merged = new Map(into.entries);
  for (const [s, t] of added) merged.set(s, t);
  into.entries = [...merged];
}
