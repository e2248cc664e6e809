import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { HearthError } from '../errors.ts';
import { errCode, fsyncDir, tempPathFor } from '../store/atomic-write.ts';

/** Folder under the data directory that backups leave out (see core/admin/backup.ts). */
export const KEYS_DIR = 'keys';
const DEFAULT_FILE = 'secrets.key';
/** Name of the systemd credential (`LoadCredential=hearth-secrets-key:/etc/hearth/secrets.key`). */
export const CREDENTIAL_NAME = 'hearth-secrets-key';

export interface KeySource {
  /** The configured `secrets.keyFile`, if any. */
  keyFile?: string | undefined;
  dataDir: string;
  /** `$CREDENTIALS_DIRECTORY` when systemd passes credentials. */
  credentialsDir?: string | undefined;
}

/** Where the master key is read from: the setting, else a systemd credential, else `<data>/keys/`. */
export function keyPath(src: KeySource): { file: string; create: boolean } {
  if (src.keyFile) return { file: path.resolve(src.keyFile), create: false };
  if (src.credentialsDir) return { file: path.join(src.credentialsDir, CREDENTIAL_NAME), create: false };
  return { file: path.join(src.dataDir, KEYS_DIR, DEFAULT_FILE), create: true };
}

/** A key file holds 32 random bytes as 64 hex digits (so an operator can copy it as text). */
function parseKey(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex))
    throw new HearthError('secrets_key_invalid', `secrets key file ${file} is not 64 hex digits`);
  return Buffer.from(hex, 'hex');
}

/**
 * Reads the master key, creating it (0600, in a 0700 folder, durable before use) only at the default
 * place: a configured or systemd-provided key that is missing is an operator error, not a reason to make
 * a new key that cannot open the existing secrets.
 */
export async function loadMasterKey(
  src: KeySource,
): Promise<{ key: Buffer; file: string; created: boolean }> {
  const { file, create } = keyPath(src);
  try {
    return { key: parseKey(await readFile(file, 'utf8'), file), file, created: false };
  } catch (err) {
    if (errCode(err) !== 'ENOENT' || !create) throw err;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await chmod(path.dirname(file), 0o700);
  const key = randomBytes(32);
  // Written under a temp name and linked into place: a crash never leaves a half-written key, and a
  // key another process linked first is never overwritten.
  const tmp = tempPathFor(file);
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(`${key.toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, file);
  } catch (err) {
    if (errCode(err) !== 'EEXIST') throw err;
    return { key: parseKey(await readFile(file, 'utf8'), file), file, created: false };
  } finally {
    await unlink(tmp).catch(() => {});
  }
  await fsyncDir(path.dirname(file));
  return { key, file, created: true };
}
