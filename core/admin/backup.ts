import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { VERSION } from '../version.ts';

export const MANIFEST = 'hearth-backup.json';

/** Files that are state worth keeping: not the lock, the run dir, temp files or set-aside copies. */
const isStateFile = (rel: string): boolean => {
  const base = path.basename(rel);
  if (rel === 'hub.lock' || rel.startsWith(`run${path.sep}`) || rel === 'run') return false;
  const top = rel.split(path.sep)[0] ?? '';
  if (top.startsWith('.restore-') || top.startsWith('.backup-')) return false;
  return !/\.(tmp|bak)$|\.tmp-|\.corrupt-/.test(base);
};

/** Relative paths of every state file under `dir` (plugin subfolders included). */
export async function stateFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter(isStateFile)
    .sort();
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

export class BackupError extends Error {}

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

/** Replaces the live state files by the staged ones (rename within one filesystem). */
export async function swapIn(dataDir: string, staged: { dir: string; files: string[] }): Promise<void> {
  for (const rel of new Set([...(await stateFiles(dataDir)), ...staged.files])) {
    await rm(path.join(dataDir, rel), { force: true });
    // A pre-restore .bak must never be what recovery falls back to.
    await rm(path.join(dataDir, `${rel}.bak`), { force: true });
  }
  for (const rel of staged.files) {
    await mkdir(path.dirname(path.join(dataDir, rel)), { recursive: true, mode: 0o700 });
    await rename(path.join(staged.dir, rel), path.join(dataDir, rel));
  }
  await rm(staged.dir, { recursive: true, force: true });
}
