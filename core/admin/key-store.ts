import type { Logger } from 'pino';
import type { DocStore, PluginStore } from '../store/types.ts';
import { hashSecret, newSecret, secretMatches } from './key.ts';

interface AdminKeyFile {
  keyHash: string | null;
  setAt: string | null;
}

/**
 * The admin API key, stored only as a hash. A fresh data dir gets a generated key, shown once; or
 * HEARTH_ADMIN_KEY sets it (automation).
 */
export class AdminKey {
  private constructor(private readonly file: DocStore<AdminKeyFile>) {}

  /** Returns the key when it was generated now, so the caller can print it once. */
  static async open(
    store: PluginStore,
    presetKey: string | undefined,
    log: Logger,
  ): Promise<{ admin: AdminKey; generated: string | null }> {
    const file = await store.open<AdminKeyFile>('admin', { keyHash: null, setAt: null });
    const admin = new AdminKey(file);
    if (presetKey) {
      if (presetKey.length < 16) throw new Error('HEARTH_ADMIN_KEY must be at least 16 characters');
      if (file.data.keyHash !== hashSecret(presetKey)) {
        await admin.set(presetKey);
        log.info('admin key set from HEARTH_ADMIN_KEY');
      }
      return { admin, generated: null };
    }
    if (file.data.keyHash) return { admin, generated: null };
    const key = newSecret();
    await admin.set(key);
    return { admin, generated: key };
  }

  private async set(key: string): Promise<void> {
    await this.file.commit((d) => {
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
