import type { Logger } from 'pino';
import { HearthError } from '../errors.ts';
import type { DocStore, PluginStore } from '../store/types.ts';
import { hashSecret, newSecret, secretMatches } from './key.ts';

interface AdminKeyFile {
  keyHash: string | null;
  setAt: string | null;
  /** Hashes of keys rotated away or replaced, newest last: none of them may become the key again. */
  retired?: string[];
}

/** How many retired key hashes are remembered. */
const RETIRED_KEPT = 50;

export const ENV_KEY_IGNORED =
  'HEARTH_ADMIN_KEY is ignored: it names an admin key that was rotated away, so the rotated key stays. Remove HEARTH_ADMIN_KEY, or set it to a new key to replace the current one.';

/**
 * The admin API key, stored only as a hash. A fresh data dir gets a generated key, shown once; or
 * HEARTH_ADMIN_KEY sets it (automation). HEARTH_ADMIN_KEY wins while it is the current key or a key never
 * used before; a key that was rotated away (or replaced) never comes back: it is ignored with a warning
 * and the current key stays.
 */
export class AdminKey {
  private constructor(private readonly file: DocStore<AdminKeyFile>) {}

  /** Returns the key when it was generated now, so the caller can print it once, and any warning. */
  static async open(
    store: PluginStore,
    presetKey: string | undefined,
    log: Logger,
  ): Promise<{ admin: AdminKey; generated: string | null; warning: string | null }> {
    const file = await store.open<AdminKeyFile>('admin', { keyHash: null, setAt: null });
    const admin = new AdminKey(file);
    if (presetKey) {
      if (presetKey.length < 16)
        throw new HearthError('admin_key_too_short', 'HEARTH_ADMIN_KEY must be at least 16 characters');
      const hash = hashSecret(presetKey);
      if (file.data.keyHash === hash) return { admin, generated: null, warning: null };
      // The caller raises it as a notice, which also logs it once.
      if (file.data.retired?.includes(hash)) {
        return { admin, generated: null, warning: ENV_KEY_IGNORED };
      }
      await admin.set(presetKey);
      log.info('admin key set from HEARTH_ADMIN_KEY');
      return { admin, generated: null, warning: null };
    }
    if (file.data.keyHash) return { admin, generated: null, warning: null };
    const key = newSecret();
    await admin.set(key);
    return { admin, generated: key, warning: null };
  }

  /** Makes `key` the admin key; the one it replaces is retired for good. */
  private async set(key: string): Promise<void> {
    await this.file.commit((d) => {
      if (d.keyHash) d.retired = [...(d.retired ?? []), d.keyHash].slice(-RETIRED_KEPT);
      d.keyHash = hashSecret(key);
      d.setAt = new Date().toISOString();
    });
  }

  async rotate(): Promise<string> {
    const key = newSecret();
    await this.set(key);
    return key;
  }

  verify = (presented: string | undefined): boolean =>
    secretMatches(presented, this.file.data.keyHash ?? undefined);
}
