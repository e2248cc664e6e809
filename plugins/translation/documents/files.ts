import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDir } from '../../../core/sdk.ts';

/**
 * Writes bytes so that a crash leaves either no file or the whole file: a temp file in the same
 * directory, fsync, rename, fsync of the directory. Resolves once the file is durable.
 */
export async function writeBytesAtomic(file: string, data: Uint8Array): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fsyncDir(dirname(file));
}

/** Removes a file that may already be gone. */
export const removeFile = (file: string) => unlink(file).catch(() => {});
