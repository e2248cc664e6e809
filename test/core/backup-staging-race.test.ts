/**
 * Regression (found by `npm run torture`): `GET /admin/backup` right after another one answered 500
 * "ENOENT … scandir <data>/.backup-…/auth", because listing the state files walked into the previous
 * backup's staging folder while its cleanup was removing it. The listing must not look inside staging
 * folders at all. The removal race is reproduced deterministically: a recursive listing that reaches a
 * staging folder fails the way the real one did when the folder vanished under it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = (async (dir: string, opts?: { recursive?: boolean }) => {
    const listed = await (real.readdir as (d: string, o?: unknown) => Promise<unknown[]>)(dir, opts);
    const staging = (await real.readdir(dir)).find(
      (n) => n.startsWith('.backup-') || n.startsWith('.restore-'),
    );
    if (opts?.recursive && staging) {
      const err = Object.assign(
        new Error(`ENOENT: no such file or directory, scandir '${path.join(dir, staging, 'auth')}'`),
        {
          code: 'ENOENT',
        },
      );
      throw err;
    }
    return listed;
  }) as typeof real.readdir;
  return { ...real, readdir, default: { ...real, readdir } };
});

const { stateFiles } = await import('../../core/admin/backup.ts');

let dir = '';
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('backup listing while another backup’s staging folder is being removed', () => {
  it('lists the state files without looking inside .backup-* or .restore-* folders', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hearth-backup-race-'));
    await writeFile(path.join(dir, 'core.admin.json'), '{}');
    await mkdir(path.join(dir, 'auth'));
    await writeFile(path.join(dir, 'auth', 'signing-keys.json'), '{}');
    await mkdir(path.join(dir, '.backup-old', 'auth'), { recursive: true });
    await writeFile(path.join(dir, '.backup-old', 'auth', 'signing-keys.json'), '{}');
    await mkdir(path.join(dir, '.restore-old'));
    await mkdir(path.join(dir, 'run'));
    await writeFile(path.join(dir, 'run', 'control.json'), '{}');
    expect(await stateFiles(dir)).toEqual(['auth/signing-keys.json', 'core.admin.json']);
  });
});
