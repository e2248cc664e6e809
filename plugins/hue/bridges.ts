/**
 * Paired bridges and their application keys. The keys live in their own document (`hue.keys.json`, 0600
 * like every data file), are registered with the log redactor when loaded or created, and never leave this
 * module except into the driver's options.
 */
import type { DocStore } from '../../core/sdk.ts';

export interface BridgeRecord {
  bridgeId: string;
  host: string;
  port: number;
  site: string;
  /** PEM of the certificate pinned at pairing; absent when a trusted root verified the bridge. */
  pinnedCert?: string;
  fingerprint256: string;
  pairedAt: string;
}

export interface BridgesDoc {
  bridges: BridgeRecord[];
}
export interface KeysDoc {
  /** bridge id → application key. */
  keys: Record<string, string>;
}

export class Bridges {
  readonly #doc: DocStore<BridgesDoc>;
  readonly #keys: DocStore<KeysDoc>;
  readonly #redact: (secret: string) => void;

  constructor(doc: DocStore<BridgesDoc>, keys: DocStore<KeysDoc>, redact: (secret: string) => void) {
    this.#doc = doc;
    this.#keys = keys;
    this.#redact = redact;
    for (const k of Object.values(keys.data.keys)) redact(k);
  }

  list(): BridgeRecord[] {
    return this.#doc.data.bridges;
  }
  get(bridgeId: string): BridgeRecord | undefined {
    return this.#doc.data.bridges.find((b) => b.bridgeId === bridgeId);
  }
  key(bridgeId: string): string | undefined {
    return Object.hasOwn(this.#keys.data.keys, bridgeId) ? this.#keys.data.keys[bridgeId] : undefined;
  }

  /** Stores a paired bridge; the key is durable before the record that points at it. */
  async save(record: BridgeRecord, appKey: string): Promise<void> {
    this.#redact(appKey);
    await this.#keys.commit((d) => {
      d.keys = { ...d.keys, [record.bridgeId]: appKey };
    });
    await this.#doc.commit((d) => {
      d.bridges = [...d.bridges.filter((b) => b.bridgeId !== record.bridgeId), record];
    });
  }

  async remove(bridgeId: string): Promise<void> {
    await this.#doc.commit((d) => {
      d.bridges = d.bridges.filter((b) => b.bridgeId !== bridgeId);
    });
    await this.#keys.commit((d) => {
      const { [bridgeId]: _gone, ...rest } = d.keys;
      d.keys = rest;
    });
  }

  async setAddress(bridgeId: string, host: string, port: number): Promise<void> {
    await this.#doc.commit((d) => {
      d.bridges = d.bridges.map((b) => (b.bridgeId === bridgeId ? { ...b, host, port } : b));
    });
  }
}

/** What the API shows of a bridge: never the key, never the whole certificate. */
export function publicView(b: BridgeRecord, connected: boolean) {
  return {
    bridgeId: b.bridgeId,
    host: b.host,
    port: b.port,
    site: b.site,
    trust: b.pinnedCert ? 'pinned' : 'root',
    fingerprint256: b.fingerprint256,
    pairedAt: b.pairedAt,
    connected,
  };
}
