import path from 'node:path';
import type { Logger } from 'pino';
import { HearthError } from '../errors.ts';
import { writeFileAtomic } from '../store/atomic-write.ts';
import { loadWithRecovery } from '../store/load-file.ts';
import { deriveKey, open, SecretUnavailableError, seal } from './cipher.ts';
import { type KeySource, loadMasterKey } from './key-file.ts';

export const SECRETS_FILE = 'secrets.json';

/** What a plugin sees as `ctx.secrets`: its own names only. See docs/secrets.md. */
export interface SecretsApi {
  get(name: string): string | undefined;
  /** Resolves once the value is durable on disk. */
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  names(): string[];
  /** Encrypts a value the plugin keeps in its own records; `context` (e.g. a record id) must match on open. */
  seal(value: string, context: string): string;
  /** Throws SecretUnavailableError when the value was sealed with another key or for another context. */
  open(sealed: string, context: string): string;
}

interface SecretsFile {
  format: 1;
  /** `<owner>/<name>` → sealed value, with that full name bound as associated data. */
  entries: Record<string, string>;
}

export interface VaultOptions extends KeySource {
  log: Logger;
  /**
   * Every value read or stored is passed here (log redaction): stored secrets for the life of the
   * process, values sealed into or opened from plugin records as `recent` (there may be one per grant).
   */
  onValue: (value: string, lifetime: 'process' | 'recent') => void;
  /** Called with a problem text while some stored secrets cannot be opened, null when all can. */
  onProblem: (text: string | null) => void;
}

/**
 * Every secret a plugin or driver keeps (Hue application keys, the Zigbee network key, upstream
 * credentials), encrypted in one file of the data directory with a master key kept elsewhere.
 */
export class SecretVault {
  private readonly plain = new Map<string, string>();
  /** Sealed texts as stored, including ones this key cannot open (kept, so restoring the key recovers them). */
  private entries: Record<string, string> = Object.create(null);
  private storeKey!: Buffer;
  private recordKey!: Buffer;
  private writing: Promise<void> = Promise.resolve();
  /** A write queued behind the running one and not started yet: later changes join it. */
  private queued: Promise<void> | null = null;
  private readonly file: string;

  private constructor(private readonly opts: VaultOptions) {
    this.file = path.join(opts.dataDir, SECRETS_FILE);
  }

  static async open(opts: VaultOptions): Promise<SecretVault> {
    const vault = new SecretVault(opts);
    const master = await loadMasterKey(opts);
    vault.storeKey = deriveKey(master.key, 'store');
    vault.recordKey = deriveKey(master.key, 'records');
    await vault.reload();
    return vault;
  }

  /** Reads the file again (after a restore replaced the data directory). */
  async reload(): Promise<void> {
    await this.writing;
    this.plain.clear();
    this.entries = Object.create(null);
    const loaded = await loadWithRecovery<Partial<SecretsFile>>(this.file, this.opts.log);
    const parsed = loaded.data ?? {};
    const unreadable: string[] = [];
    for (const [full, sealed] of Object.entries(parsed.entries ?? {})) {
      if (typeof sealed !== 'string') continue;
      this.entries[full] = sealed;
      try {
        const value = open(this.storeKey, sealed, full);
        this.plain.set(full, value);
        this.opts.onValue(value, 'process');
      } catch (err) {
        if (!(err instanceof SecretUnavailableError)) throw err;
        unreadable.push(full);
      }
    }
    this.opts.onProblem(
      unreadable.length === 0
        ? null
        : `${unreadable.length} stored secret(s) cannot be opened with this key (${unreadable.join(', ')}): ` +
            'the key file does not match secrets.json (see docs/secrets.md#moving-to-another-machine)',
    );
  }

  forOwner(owner: string): SecretsApi {
    const full = (name: string): string => {
      if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
        throw new HearthError('secret_bad_name', 'secret names are 1 to 200 characters');
      }
      return `${owner}/${name}`;
    };
    const prefix = `${owner}/`;
    return {
      get: (name) => this.plain.get(full(name)),
      set: (name, value) => this.set(full(name), value),
      delete: (name) => this.delete(full(name)),
      names: () =>
        Object.keys(this.entries)
          .filter((k) => k.startsWith(prefix))
          .map((k) => k.slice(prefix.length))
          .sort(),
      seal: (value, context) => {
        this.opts.onValue(value, 'recent');
        return seal(this.recordKey, value, `${prefix}${context}`);
      },
      open: (sealed, context) => {
        const value = open(this.recordKey, sealed, `${prefix}${context}`);
        this.opts.onValue(value, 'recent');
        return value;
      },
    };
  }

  private set(full: string, value: string): Promise<void> {
    if (typeof value !== 'string') throw new TypeError('a secret value is a string');
    this.opts.onValue(value, 'process');
    this.plain.set(full, value);
    this.entries[full] = seal(this.storeKey, value, full);
    return this.save();
  }

  private delete(full: string): Promise<void> {
    if (!(full in this.entries)) return this.writing;
    this.plain.delete(full);
    delete this.entries[full];
    return this.save();
  }

  /**
   * Writes are chained: each write carries every change made before it started, so the promise a caller
   * gets resolves only when its own change is durable. Changes made while a write runs share the next one.
   */
  private save(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.writing.then(() => {
      this.queued = null;
      return writeFileAtomic(this.file, this.serialise());
    });
    this.queued = next;
    // A failed write must not poison later ones; the caller of this write still sees the error.
    this.writing = next.catch(() => {});
    return next;
  }

  private serialise(): string {
    const file: SecretsFile = { format: 1, entries: { ...this.entries } };
    return `${JSON.stringify(file, null, 2)}\n`;
  }
}
