/**
 * matter.js keeps a node's state (fabrics, ACLs, endpoint numbers, subscriptions) in a key/value storage.
 * This is that storage on Hearth's store: one document per bridge (`matter.node-<site>.json`), written
 * atomically like every data file, in the backup, and durable before matter.js goes on (a fabric a
 * controller was told is added must survive a power cut).
 */
import {
  type Environment,
  fromJson,
  MemoryStorageDriver,
  StorageManager,
  StorageService,
  type SupportedStorageTypes,
  toJson,
} from '@matter/main';
import type { DocStore } from '../../core/sdk.ts';

/** Stored form: context path (dot-joined) → key → the value in matter.js' own JSON encoding (bigint, bytes). */
export interface NodeDoc {
  contexts: Record<string, Record<string, string>>;
}

/**
 * Keys never written to the document: the passcode is a secret kept by the secrets facility and handed
 * to matter.js at every start.
 */
const SECRET_KEYS = new Set(['passcode']);

/**
 * A bridged device's attribute values (on/off, level, colour) only mirror Hearth's own state, which
 * the bridge sets again at every start: they are written coalesced, like Hearth's light levels, so a
 * report to a controller never waits for an fsync. Everything else (fabrics, ACLs, endpoint numbers,
 * event numbers, sessions) is durable before matter.js goes on.
 */
function isMirror(ctx: string, entries: Record<string, unknown>): boolean {
  return ctx.startsWith(`${BRIDGED_CONTEXT}.`) && Object.keys(entries).every((k) => !k.startsWith('__'));
}

/** Where matter.js keeps the state of the aggregator's endpoints (its id is `lights`, bridge.ts). */
const BRIDGED_CONTEXT = 'root.parts.lights.parts';

export class HearthStorageDriver extends MemoryStorageDriver {
  readonly #doc: DocStore<NodeDoc>;

  constructor(doc: DocStore<NodeDoc>) {
    const loaded: Record<string, Record<string, SupportedStorageTypes>> = Object.create(null);
    for (const [ctx, values] of Object.entries(doc.data.contexts)) {
      const decoded: Record<string, SupportedStorageTypes> = Object.create(null);
      for (const [key, json] of Object.entries(values)) decoded[key] = fromJson(json);
      loaded[ctx] = decoded;
    }
    super(loaded);
    this.#doc = doc;
  }

  override set(
    contexts: string[],
    keyOrValues: string | Record<string, SupportedStorageTypes>,
    value?: SupportedStorageTypes,
  ): Promise<void> {
    super.set(contexts, keyOrValues, value);
    const entries = typeof keyOrValues === 'string' ? { [keyOrValues]: value } : keyOrValues;
    const ctx = contexts.join('.');
    const write = (d: NodeDoc) => {
      const target = d.contexts[ctx] ?? Object.create(null);
      for (const [key, v] of Object.entries(entries)) {
        if (SECRET_KEYS.has(key) || v === undefined) continue;
        target[key] = toJson(v);
      }
      d.contexts[ctx] = target;
    };
    if (isMirror(ctx, entries)) {
      this.#doc.update(write);
      return Promise.resolve();
    }
    return this.#doc.commit(write);
  }

  override delete(contexts: string[], key: string): Promise<void> {
    super.delete(contexts, key);
    return this.#doc.commit((d) => {
      delete d.contexts[contexts.join('.')]?.[key];
    });
  }

  override clearAll(contexts: string[]): Promise<void> {
    super.clearAll(contexts);
    const prefix = contexts.join('.');
    return this.#doc.commit((d) => {
      for (const ctx of Object.keys(d.contexts)) {
        if (prefix === '' || ctx === prefix || ctx.startsWith(`${prefix}.`)) delete d.contexts[ctx];
      }
    });
  }
}

/** A storage service that hands every node of `env` the one document of its bridge, never a folder. */
export function useHearthStorage(env: Environment, doc: DocStore<NodeDoc>): void {
  const service = new StorageService(env);
  service.open = async () => {
    const manager = new StorageManager(new HearthStorageDriver(doc));
    await manager.initialize();
    return manager;
  };
}
