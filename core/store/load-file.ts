import { readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { bakPathFor, errCode, fileLabel } from './atomic-write.ts';

export type LoadResult<T> =
  | { source: 'file'; data: T }
  | { source: 'bak'; data: T }
  | { source: 'defaults'; data: null };

/** ISO 8601 basic format (no colons) so the name is valid on every filesystem a backup may land on. */
export function corruptStamp(now = new Date()): string {
  return now.toISOString().replace(/[-:]/g, '');
}

type Parsed = { ok: true; value: object } | { ok: false; missing: boolean };

async function readJsonObject(file: string): Promise<Parsed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT') return { ok: false, missing: true };
    throw err;
  }
  try {
    const value: unknown = JSON.parse(text);
    // A store file always holds an object; anything else is as unusable as a syntax error.
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value };
  } catch {
    // fall through: unparsable
  }
  return { ok: false, missing: false };
}

/** Moves an unusable file out of the way, keeping it for inspection; returns the new name. */
async function setAside(file: string): Promise<string> {
  const target = `${file}.corrupt-${corruptStamp()}`;
  await rename(file, target);
  return target;
}

/**
 * Reads a store file. Missing: defaults. Unparsable: it is renamed to `<name>.corrupt-<time>` and the last
 * good copy (`<name>.bak`) is used, or defaults when that is unusable too. Every step of a recovery is
 * logged at error level with file names only: the content may hold secrets.
 */
export async function loadWithRecovery<T extends object>(file: string, log: Logger): Promise<LoadResult<T>> {
  const main = await readJsonObject(file);
  if (main.ok) return { source: 'file', data: main.value as T };
  if (main.missing) return { source: 'defaults', data: null };

  const corrupt = await setAside(file);
  const bak = bakPathFor(file);
  const backup = await readJsonObject(bak);
  if (backup.ok) {
    log.error(
      { file: fileLabel(file), setAside: fileLabel(corrupt), recoveredFrom: fileLabel(bak) },
      'store file did not parse: set aside and recovered the last good copy (.bak); recent changes may be lost',
    );
    return { source: 'bak', data: backup.value as T };
  }
  const badBak = backup.missing ? null : fileLabel(await setAside(bak));
  log.error(
    { file: fileLabel(file), setAside: fileLabel(corrupt), badBak },
    'store file did not parse and no usable .bak exists: starting from defaults',
  );
  return { source: 'defaults', data: null };
}

/**
 * Removes temp files left by a writer that died mid-write (`<name>.tmp-<pid>-<n>`, `<name>.bak.tmp-…`).
 * Only files of dead processes (or of this one, whose single owner is the caller) are removed.
 */
export async function removeStaleTemps(file: string, log: Logger): Promise<number> {
  const dir = dirname(file);
  const base = basename(file);
  const pattern = /^\.(?:bak\.)?tmp-(\d+)-\d+$/;
  let removed = 0;
  for (const entry of await readdir(dir)) {
    if (!entry.startsWith(base)) continue;
    const match = pattern.exec(entry.slice(base.length));
    if (!match || !isStalePid(Number(match[1]))) continue;
    await unlink(join(dir, entry)).catch(() => {});
    removed += 1;
  }
  if (removed > 0) log.warn({ file: fileLabel(file), removed }, 'removed temp files of an interrupted write');
  return removed;
}

function isStalePid(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: alive but someone else's; only ESRCH proves the writer is gone.
    return errCode(err) === 'ESRCH';
  }
}
