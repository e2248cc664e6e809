import { readFile, writeFile } from 'node:fs/promises';
import type { CliCommand, CliIo } from '../plugin/types.ts';

const answered = (status: number, body: unknown): string =>
  `hub answered ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`;

/** Prints the problem and returns the exit code. */
const fail = (io: CliIo, line: string, code: number): number => {
  io.err(line);
  return code;
};

/** The core's own data commands; plugins add theirs through `commands`. All go through the admin API. */
export const coreCommands: CliCommand[] = [
  {
    name: 'admin-key rotate',
    usage: 'hearth admin-key rotate',
    summary: 'Replace the admin key; the old one stops working at once',
    async run(_args, io) {
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
    async run(args, io) {
      const file = args[0];
      if (!file) return fail(io, 'usage: hearth backup <file.tar.gz>', 2);
      const res = await io.admin.request('GET', '/admin/backup');
      if (res.status !== 200 || !(res.body instanceof Uint8Array))
        return fail(io, answered(res.status, res.body), 1);
      await writeFile(file, res.body, { mode: 0o600 });
      io.out(`backup written to ${file} (${res.body.byteLength} bytes)`);
      return 0;
    },
  },
  {
    name: 'restore',
    usage: 'hearth restore <file.tar.gz>',
    summary: 'Replace the data with a backup; a running hub reloads its plugins on the restored data',
    async run(args, io) {
      const file = args[0];
      if (!file) return fail(io, 'usage: hearth restore <file.tar.gz>', 2);
      const archive = new Uint8Array(await readFile(file));
      const res = await io.admin.request('POST', '/admin/restore', archive);
      if (res.status !== 200) return fail(io, answered(res.status, res.body), 1);
      io.out(`restored ${(res.body as { restored: string[] }).restored.length} files from ${file}`);
      return 0;
    },
  },
];
