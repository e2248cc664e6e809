import { accessSync, constants, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliCommand, CliIo } from '../plugin/types.ts';

const answered = (status: number, body: unknown): string =>
  `hub answered ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`;

/** Prints the problem and returns the exit code. */
const fail = (io: CliIo, line: string, code: number): number => {
  io.err(line);
  return code;
};

/** Why `file` cannot be written, or null. */
function unwritable(file: string): string | null {
  const dir = path.dirname(path.resolve(file));
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a directory`;
    accessSync(dir, constants.W_OK);
    return null;
  } catch (e) {
    return `cannot write to ${dir} (${(e as NodeJS.ErrnoException).code})`;
  }
}

/** Why `file` cannot be read, or null. */
function unreadable(file: string): string | null {
  try {
    if (!statSync(file).isFile()) return `${file} is not a file`;
    accessSync(file, constants.R_OK);
    return null;
  } catch (e) {
    return `cannot read ${file} (${(e as NodeJS.ErrnoException).code})`;
  }
}

/** The core's own data commands; plugins add theirs through `commands`. All go through the admin API. */
export const coreCommands: CliCommand[] = [
  {
    name: 'admin-key rotate',
    usage: 'hearth admin-key rotate',
    summary: 'Replace the admin key; the old one stops working at once',
    async run(_input, io) {
      const res = await io.admin.request('POST', '/admin/admin-key/rotate');
      if (res.status !== 200) return fail(io, answered(res.status, res.body), 1);
      io.out(`New admin key (shown once): ${(res.body as { key: string }).key}`);
      return 0;
    },
  },
  {
    name: 'backup',
    usage: 'hearth backup <file.tar.gz>',
    summary: 'Write a consistent archive of the data directory (works while the hub runs)',
    positionals: [1, 1],
    readsOnly: true,
    check: ({ positionals: [file] }) => unwritable(file as string),
    async run({ positionals: [file] }, io) {
      const res = await io.admin.request('GET', '/admin/backup');
      if (res.status !== 200 || !(res.body instanceof Uint8Array))
        return fail(io, answered(res.status, res.body), 1);
      await writeFile(file as string, res.body, { mode: 0o600 });
      io.out(`backup written to ${file} (${res.body.byteLength} bytes)`);
      return 0;
    },
  },
  {
    name: 'restore',
    usage: 'hearth restore <file.tar.gz>',
    summary: 'Replace the data with a backup; a running hub reloads its plugins on the restored data',
    positionals: [1, 1],
    check: ({ positionals: [file] }) => unreadable(file as string),
    async run({ positionals: [file] }, io) {
      const archive = new Uint8Array(await readFile(file as string));
      const res = await io.admin.request('POST', '/admin/restore', archive);
      if (res.status !== 200) return fail(io, answered(res.status, res.body), 1);
      io.out(`restored ${(res.body as { restored: string[] }).restored.length} files from ${file}`);
      return 0;
    },
  },
];
