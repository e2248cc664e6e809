import { rm } from 'node:fs/promises';
import { HttpError } from '../http/errors.ts';
import type { HearthRouter } from '../http/types.ts';
import type { Hub } from '../hub.ts';
import { archiveStream, BackupError, stageBackup, swapIn, unpackBackup } from './backup.ts';

/** `GET /admin/backup` streams a consistent .tar.gz; `POST /admin/restore` takes one and reloads the plugins. */
export function mountBackup(router: HearthRouter, hub: Hub): void {
  router.get('/admin/backup', async (ctx) => {
    const staged = await hub.storeRoot().withWritesPaused(() => stageBackup(hub.dataDir));
    const stream = await archiveStream(staged.dir);
    const cleanup = () => void rm(staged.dir, { recursive: true, force: true });
    stream.once('end', cleanup);
    stream.once('error', cleanup);
    ctx.type = 'application/gzip';
    ctx.set(
      'Content-Disposition',
      `attachment; filename="hearth-backup-${new Date().toISOString().slice(0, 10)}.tar.gz"`,
    );
    ctx.body = stream;
  });

  router.post('/admin/restore', async (ctx) => {
    if (!ctx.is('application/gzip', 'application/x-gzip', 'application/octet-stream')) {
      throw new HttpError(415, 'unsupported_media_type', 'Send the backup archive as application/gzip');
    }
    let staged: Awaited<ReturnType<typeof unpackBackup>>;
    try {
      staged = await unpackBackup(hub.dataDir, ctx.req);
    } catch (err) {
      if (err instanceof BackupError) throw new HttpError(400, 'invalid_backup', err.message);
      throw err;
    }
    // This request is the one in flight the restore does not wait for.
    await hub.reload(() => swapIn(hub.dataDir, staged), 1);
    ctx.body = { restored: staged.files };
  });
}
