import { cp, mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { HearthError } from '../errors.ts';
import { KEYS_DIR } from '../secrets/key-file.ts';
import { fsyncDir, writeFileAtomic } from '../store/atomic-write.ts';
import { VERSION } from '../version.ts';

export const MANIFEST = 'hearth-backup.json';

/** Files that are state worth keeping: not the lock, the run dir, temp files or set-aside copies. */
const isStateFile = (rel: string): boolean => {
  const base = path.basename(rel);
  if (rel === 'hub.lock' || rel.startsWith(`run${path.sep}`) || rel === 'run') return false;
  const top = rel.split(path.sep)[0] ?? '';
  if (top.startsWith('.restore-') || top.startsWith('.backup-') || top === KEYS_DIR) return false;
  return !/\.(tmp|bak)$|\.tmp-|\.corrupt-/.test(base);
};

/**
 * Folders never walked: the run dir, the secrets key (kept out of backups so a backup alone never opens the
 * secrets; see docs/secrets.md), and staging folders another request may be removing right now.
 */
const skipDir = (name: string): boolean =>
  name === 'run' || name === KEYS_DIR || name.startsWith('.restore-') || name.startsWith('.backup-');

/** Relative paths of every state file under `dir` (plugin subfolders included). */
export async function stateFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const top of await readdir(dir, { withFileTypes: true })) {
    if (top.isFile()) found.push(top.name);
    if (!top.isDirectory() || skipDir(top.name)) continue;
    for (const e of await readdir(path.join(dir, top.name), { recursive: true, withFileTypes: true })) {
      if (e.isFile()) found.push(path.relative(dir, path.join(e.parentPath, e.name)));
    }
  }
  return found.filter(isStateFile).sort();
}

/**
 * Copies the state files while the store holds writes back (the caller pauses them), so the archive is
 * one consistent moment. Returns the staging dir; the caller streams it and removes it.
 */
export async function stageBackup(dataDir: string): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(path.join(dataDir, '.backup-'));
  const files = await stateFiles(dataDir);
  for (const rel of files) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await cp(path.join(dataDir, rel), path.join(dir, rel), { preserveTimestamps: true });
  }
  const manifest = { format: 1, version: VERSION, createdAt: new Date().toISOString(), files };
  await writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest, null, 2));
  return { dir, files };
}

export async function archiveStream(stagingDir: string): Promise<Readable> {
  const tar = await import('tar');
  // tar's stream is a Minipass, not a Node stream; Koa only pipes real Readables.
  return Readable.from(tar.c({ gzip: true, cwd: stagingDir, portable: true }, ['.']));
}

export class BackupError extends HearthError {
  constructor(message: string) {
    super('backup_invalid', message);
  }
}

/**
 * Unpacks an archive into a staging dir inside the data dir and checks it: a manifest, every listed file
 * present, every JSON file parses. Nothing in the live data dir is touched.
 */
export async function unpackBackup(
  dataDir: string,
  archive: Readable,
): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(path.join(dataDir, '.restore-'));
  try {
    // tar strips `..` and absolute paths unless preservePaths is set, so nothing lands outside `dir`.
    const tar = await import('tar');
    await pipeline(archive, tar.x({ cwd: dir, strict: true }));
    let manifest: { format?: unknown; files?: unknown };
    try {
      manifest = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as typeof manifest;
    } catch {
      throw new BackupError(`not a Hearth backup: ${MANIFEST} is missing or unreadable`);
    }
    if (manifest.format !== 1 || !Array.isArray(manifest.files))
      throw new BackupError('unsupported backup format');
    const files = (await stateFiles(dir)).filter((f) => f !== MANIFEST);
    for (const rel of files) {
      if (!rel.endsWith('.json')) continue;
      try {
        JSON.parse(await readFile(path.join(dir, rel), 'utf8'));
      } catch {
        throw new BackupError(`backup file ${rel} is not valid JSON`);
      }
    }
    const missing = (manifest.files as string[]).filter((f) => !files.includes(f));
    if (missing.length) throw new BackupError(`backup is incomplete: ${missing.join(', ')}`);
    return { dir, files };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`backup archive is unreadable: ${(err as Error).message}`);
  }
}

/** In a restore's staging dir: the list of files to move in, written once the live files may be touched. */
const SWAP_MARKER = '.swap-ready.json';

const exists = (file: string): Promise<boolean> =>
  stat(file).then(
    () => true,
    () => false,
  );

async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves the staged files in: live state files the backup does not have go, staged ones replace theirs.
 * Idempotent, so a swap cut short (kill -9, power cut) is finished by running it again.
 */
export async function finishSwap(
  dataDir: string,
  stagingDir: string,
  files: readonly string[],
): Promise<void> {
  const keep = new Set(files);
  for (const rel of await stateFiles(dataDir)) {
    if (keep.has(rel)) continue;
    await rm(path.join(dataDir, rel), { force: true });
    await rm(path.join(dataDir, `${rel}.bak`), { force: true });
  }
  for (const rel of files) {
    const from = path.join(stagingDir, rel);
    if (!(await exists(from))) continue; // moved before the interruption
    // A pre-restore .bak must never be what recovery falls back to.
    await rm(path.join(dataDir, `${rel}.bak`), { force: true });
    await mkdir(path.dirname(path.join(dataDir, rel)), { recursive: true, mode: 0o700 });
    await rename(from, path.join(dataDir, rel));
  }
  for (const dir of new Set(files.map((rel) => path.dirname(path.join(dataDir, rel))))) await fsyncDir(dir);
  await rm(stagingDir, { recursive: true, force: true });
}

/**
 * Replaces the live state files by the staged ones (rename within one filesystem). The staged files are
 * made durable and listed in a marker first: from then on a restart completes the swap rather than leaving
 * a mix of old and restored files.
 */
export async function swapIn(dataDir: string, staged: { dir: string; files: string[] }): Promise<void> {
  await markSwapReady(staged);
  await finishSwap(dataDir, staged.dir, staged.files);
}

/** Makes the staged files durable and writes the marker after which a restart finishes the swap. */
export async function markSwapReady(staged: { dir: string; files: string[] }): Promise<void> {
  for (const rel of staged.files) await fsyncFile(path.join(staged.dir, rel));
  await writeFileAtomic(path.join(staged.dir, SWAP_MARKER), JSON.stringify({ files: staged.files }));
}

/**
 * At start, before the store opens: what an interrupted backup or restore left behind. A backup's staging
 * copy is removed; a restore that had not started swapping is removed (the live data was never touched);
 * one that had is finished, so the data is the restored backup as a whole.
 */
export async function recoverStaging(dataDir: string, log: Logger): Promise<void> {
  const entries = await readdir(dataDir, { withFileTypes: true });
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const dir = path.join(dataDir, e.name);
    if (e.name.startsWith('.backup-')) {
      await rm(dir, { recursive: true, force: true });
      log.warn({ dir: e.name }, 'removed the staging copy of an interrupted backup');
    } else if (e.name.startsWith('.restore-')) {
      let files: string[] | null = null;
      try {
        const marker = JSON.parse(await readFile(path.join(dir, SWAP_MARKER), 'utf8')) as { files?: unknown };
        if (Array.isArray(marker.files) && marker.files.every((f) => typeof f === 'string'))
          files = marker.files;
      } catch {}
      if (files) {
        await finishSwap(dataDir, dir, files);
        log.warn(
          { dir: e.name, files: files.length },
          'finished a restore that was interrupted while swapping files in',
        );
      } else {
        await rm(dir, { recursive: true, force: true });
        log.warn(
          { dir: e.name },
          'removed the staging folder of an interrupted restore; the data was not touched',
        );
      }
    }
  }
}
