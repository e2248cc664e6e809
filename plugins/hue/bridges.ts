/**
 * Paired bridges and their application keys. The keys are kept by the core secrets facility
 * (docs/secrets.md: encrypted at rest, redacted from every log line), one secret per bridge, and never
 * leave this module except into the driver's options.
 */
import type { DocStore, SecretsApi } from '../../core/sdk.ts';

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
/** The plain-text key file of older versions (`hue.keys.json`): read once to move the keys out of it. */
export interface KeysDoc {
  /** bridge id → application key. */
  keys: Record<string, string>;
}

const secretName = (bridgeId: string) => `appKey/${bridgeId}`;

/**
 * Moves application keys stored in plain text by an older version into the secrets facility: each is
 * durable there before the file is emptied, so a crash in between loses nothing (the next start moves
 * it again). The file is written twice so its `.bak` copy no longer holds a key either.
 */
export async function migratePlainKeys(keys: DocStore<KeysDoc>, secrets: SecretsApi): Promise<number> {
  const plain = Object.entries(keys.data.keys ?? {}).filter(([, k]) => typeof k === 'string' && k !== '');
  if (plain.length === 0) return 0;
  for (const [bridgeId, key] of plain) await secrets.set(secretName(bridgeId), key);
  for (let i = 0; i < 2; i++) {
    await keys.commit((d) => {
      d.keys = {};
    });
  }
  return plain.length;
}

export class Bridges {
  readonly #doc: DocStore<BridgesDoc>;
  readonly #secrets: SecretsApi;

  constructor(doc: DocStore<BridgesDoc>, secrets: SecretsApi) {
    this.#doc = doc;
    this.#secrets = secrets;
  }

  list(): BridgeRecord[] {
    return this.#doc.data.bridges;
  }
  get(bridgeId: string): BridgeRecord | undefined {
    return this.#doc.data.bridges.find((b) => b.bridgeId === bridgeId);
  }
  /** The bridge's application key; undefined when it was never stored or cannot be decrypted. */
  key(bridgeId: string): string | undefined {
    return this.#secrets.get(secretName(bridgeId));
  }

  /** Stores a paired bridge; the key is durable before the record that points at it. */
  async save(record: BridgeRecord, appKey: string): Promise<void> {
    await this.#secrets.set(secretName(record.bridgeId), appKey);
    await this.#doc.commit((d) => {
      d.bridges = [...d.bridges.filter((b) => b.bridgeId !== record.bridgeId), record];
    });
  }

  async remove(bridgeId: string): Promise<void> {
    await this.#doc.commit((d) => {
      d.bridges = d.bridges.filter((b) => b.bridgeId !== bridgeId);
    });
    await this.#secrets.delete(secretName(bridgeId));
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
