import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { ownValue, setOwn } from '../own.ts';

export interface KeyLimits {
  /** Characters per calendar month (UTC); null = unlimited, 0 = blocked. */
  characters: number | null;
  speechToTextMilliseconds: number | null;
}

export interface DeveloperKey {
  id: string;
  /** sha256 of the secret: the secret itself is shown once, at creation, and never stored. */
  hash: string;
  /** spec: "first four characters, stars, last four characters". */
  masked: string;
  label: string;
  created: string;
  deactivated: string | null;
  limits: KeyLimits;
}

interface KeysDoc {
  keys: Record<string, DeveloperKey>;
}

// One-shot hash (Node ≥ 20.12): a third of createHash's cost, and it runs on every request.
const sha256 = (secret: string) => hash('sha256', secret, 'hex');
export const maskKey = (secret: string) => `${secret.slice(0, 4)}${'*'.repeat(4)}${secret.slice(-4)}`;

/** docs/translation.md#admin-api: a new key's label defaults to "DeepL API Key". */
export const DEFAULT_LABEL = 'DeepL API Key';

/**
 * Developer keys (spec: create, list, rename, deactivate, limits). Every change is committed before it is
 * acknowledged; deactivation is permanent and effective at once (the in-memory index is the one checked).
 */
export class DeveloperKeys {
  private readonly byHash = new Map<string, DeveloperKey>();

  private constructor(private readonly doc: DocStore<KeysDoc>) {
    for (const key of Object.values(doc.data.keys)) this.byHash.set(key.hash, key);
  }

  static async open(store: PluginStore): Promise<DeveloperKeys> {
    return new DeveloperKeys(await store.open<KeysDoc>('keys', { keys: {} }));
  }

  /** The active key for a presented secret, or null (unknown and deactivated look the same). */
  authenticate(secret: string): DeveloperKey | null {
    const key = this.byHash.get(sha256(secret));
    return key && key.deactivated === null ? key : null;
  }

  list(): DeveloperKey[] {
    return Object.values(this.doc.data.keys).sort((a, b) => a.created.localeCompare(b.created));
  }

  /** Own entries only: an id such as `__proto__` or `constructor` is simply unknown. */
  get(id: string): DeveloperKey | undefined {
    return ownValue(this.doc.data.keys, id);
  }

  async create(label: string): Promise<{ key: DeveloperKey; secret: string }> {
    // Shaped like a DeepL key (`<uuid>:<suffix>`); the `:hx` suffix keeps clients off the `:fx` Free host logic.
    const secret = `${randomUUID()}-${randomBytes(4).toString('hex')}:hx`;
    const key: DeveloperKey = {
      id: randomUUID(),
      hash: sha256(secret),
      masked: maskKey(secret),
      label,
      created: new Date().toISOString(),
      deactivated: null,
      limits: { characters: null, speechToTextMilliseconds: null },
    };
    await this.doc.commit((d) => {
      setOwn(d.keys, key.id, key);
    });
    const stored = this.get(key.id) ?? key;
    this.byHash.set(key.hash, stored);
    return { key: stored, secret };
  }

  /** Applies a change to one key and waits until it is durable. */
  async change(id: string, mutate: (key: DeveloperKey) => void): Promise<DeveloperKey | undefined> {
    if (!this.get(id)) return undefined;
    await this.doc.commit((d) => {
      const key = ownValue(d.keys, id);
      if (key) mutate(key);
    });
    const key = this.get(id);
    if (key) this.byHash.set(key.hash, key);
    return key;
  }
}

/** The `ApiKey` resource as the admin API shows it (field names beyond key_id/label follow docs/translation.md#admin-api). */
export function apiKeyJson(key: DeveloperKey, secret?: string): Record<string, unknown> {
  return {
    key_id: key.id,
    label: key.label,
    creation_time: key.created,
    deactivated_time: key.deactivated,
    is_deactivated: key.deactivated !== null,
    usage_limits: {
      characters: key.limits.characters,
      speech_to_text_milliseconds: key.limits.speechToTextMilliseconds,
    },
    ...(secret ? { key: secret } : {}),
  };
}
