import { copyFile, link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** Per-process counter so two writes of one file never share a temp name. */
let tempCounter = 0;

/** Temp files carry the writer's pid so a later process can tell a crashed writer's leftovers from live ones. */
export function tempPathFor(file: string): string {
  tempCounter += 1;
  return `${file}.tmp-${process.pid}-${tempCounter}`;
}

export const bakPathFor = (file: string): string => `${file}.bak`;

/** Hard links are cheap but not everywhere (FAT/exFAT sticks): remember per directory once they fail. */
const noHardLinks = new Set<string>();

/**
 * Points `<file>.bak` at the current good file before it is replaced. A hard link costs no copy; it is made
 * under a temp name and renamed so `.bak` is never missing or half-written. No current file: nothing to keep.
 */
async function keepPreviousAsBak(file: string): Promise<void> {
  const dir = dirname(file);
  const tmp = tempPathFor(bakPathFor(file));
  try {
    if (noHardLinks.has(dir)) await copyFile(file, tmp);
    else {
      try {
        await link(file, tmp);
      } catch (err) {
        if (errCode(err) === 'ENOENT') throw err;
        noHardLinks.add(dir);
        await copyFile(file, tmp);
      }
    }
    await rename(tmp, bakPathFor(file));
  } catch (err) {
    await unlink(tmp).catch(() => {});
    if (errCode(err) !== 'ENOENT') throw err;
  }
}

/** fsync on a directory makes the renames in it durable (POSIX: rename is atomic, not durable). */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (err) {
    // Some filesystems (FUSE, SMB) cannot fsync a directory; the rename itself has still happened.
    if (errCode(err) !== 'EINVAL') throw err;
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` with `text` so that after a crash at any instant the file is either the old or the new
 * content, never a mix: write a temp file in the same directory, fsync it, keep the old file as `.bak`,
 * rename the temp over the file, fsync the directory. Resolves only when the new content is durable.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = tempPathFor(file);
  try {
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await keepPreviousAsBak(file);
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fsyncDir(dirname(file));
}

export function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** The file name only: log lines name files, never their directory contents or data. */
export const fileLabel = (file: string): string => basename(file);
