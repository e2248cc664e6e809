import { createHash, randomUUID } from 'node:crypto';
import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { invalid, notFoundError } from '../errors.ts';
import { keyedRecord, ownValue, setOwn } from '../own.ts';
import { type ConfiguredRules, type CustomInstruction, MAX_INSTRUCTIONS } from './params.ts';

/** Style rule lists an account may hold (the spec names none; the same bound as glossaries). */
export const MAX_STYLE_RULES = 1000;

export interface StyleRuleList {
  style_id: string;
  name: string;
  creation_time: string;
  updated_time: string;
  language: string;
  /** Bumped by every change: part of the translation cache key and of upstream copies' identity. */
  version: number;
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstruction[];
}

interface Stored extends StyleRuleList {
  /** Key id, client id or site: a list is visible to its own account only. */
  account: string;
}

interface StyleDoc {
  lists: Record<string, Stored>;
}

/** The list as the API shows it: `detailed` adds the rules and instructions. */
export function styleRuleInfo(list: StyleRuleList, detailed = true) {
  const info: Record<string, unknown> = {
    style_id: list.style_id,
    name: list.name,
    creation_time: list.creation_time,
    updated_time: list.updated_time,
    language: list.language,
    version: list.version,
  };
  if (detailed) {
    info.configured_rules = list.configured_rules;
    info.custom_instructions = list.custom_instructions;
  }
  return info;
}

/** A digest of what shapes a translation (language, rules, instructions), for cache keys and upstream copies. */
export function styleDigest(list: Readonly<StyleRuleList>): string {
  return createHash('sha256')
    .update(JSON.stringify([list.language, list.configured_rules, list.custom_instructions]))
    .digest('hex');
}

export type StyleListener = (account: string, styleId: string) => void;

/**
 * Style rule lists of every account in one data file (`translation.style-rules.json`): they are small
 * (at most 200 instructions of 300 characters). Every change is durable before it is acknowledged.
 */
export class StyleRuleStore {
  private readonly listeners: StyleListener[] = [];

  private constructor(private readonly doc: DocStore<StyleDoc>) {}

  static async open(store: PluginStore): Promise<StyleRuleStore> {
    return new StyleRuleStore(await store.open<StyleDoc>('style-rules', { lists: keyedRecord() }));
  }

  onChange(listener: StyleListener): void {
    this.listeners.push(listener);
  }

  list(account: string): StyleRuleList[] {
    return Object.values(this.doc.data.lists)
      .filter((l) => l.account === account)
      .sort((a, b) => a.creation_time.localeCompare(b.creation_time) || a.style_id.localeCompare(b.style_id))
      .map(strip);
  }

  /** Another account's list is as unknown as a missing one. */
  get(account: string, id: string): StyleRuleList {
    return strip(this.find(account, id));
  }

  /** The stored list itself, not a copy (read-only: for the translate path, which only reads it). */
  peek(account: string, id: string): Readonly<StyleRuleList> {
    return this.find(account, id);
  }

  private find(account: string, id: string): Stored {
    const found = ownValue(this.doc.data.lists, id);
    if (!found || found.account !== account) throw notFoundError(`Style rule list '${id}' not found.`);
    return found;
  }

  async create(
    account: string,
    fields: Pick<StyleRuleList, 'name' | 'language' | 'configured_rules'> & {
      custom_instructions: Array<Omit<CustomInstruction, 'id'>>;
    },
  ): Promise<StyleRuleList> {
    if (this.list(account).length >= MAX_STYLE_RULES) {
      throw invalid(`An account may hold at most ${MAX_STYLE_RULES} style rule lists.`);
    }
    const now = new Date().toISOString();
    const list: Stored = {
      account,
      style_id: randomUUID(),
      name: fields.name,
      creation_time: now,
      updated_time: now,
      language: fields.language,
      version: 1,
      configured_rules: fields.configured_rules,
      custom_instructions: fields.custom_instructions.map((i) => ({ id: randomUUID(), ...i })),
    };
    await this.doc.commit((d) => setOwn(d.lists, list.style_id, list));
    return strip(list);
  }

  /** Applies `change` to a copy; the result is stored with a new version. */
  async change(account: string, id: string, change: (list: StyleRuleList) => void): Promise<StyleRuleList> {
    const current = this.get(account, id);
    const next = structuredClone(current);
    change(next);
    if (next.custom_instructions.length > MAX_INSTRUCTIONS) {
      throw invalid(`A style rule list may hold at most ${MAX_INSTRUCTIONS} custom instructions.`);
    }
    next.version = current.version + 1;
    next.updated_time = new Date().toISOString();
    await this.doc.commit((d) => setOwn(d.lists, id, { ...next, account }));
    for (const listener of this.listeners) listener(account, id);
    return next;
  }

  async delete(account: string, id: string): Promise<void> {
    this.get(account, id);
    await this.doc.commit((d) => {
      delete d.lists[id];
    });
    for (const listener of this.listeners) listener(account, id);
  }

  flush(): Promise<void> {
    return this.doc.flush();
  }
}

function strip(stored: Stored): StyleRuleList {
  const { account: _account, ...list } = stored;
  return structuredClone(list);
}
