import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface RunInfo {
  pid: number;
  adminUrl: string;
  /** Valid only while this hub runs; the file is readable by the hub's user only (0600). */
  controlToken: string;
  version: string;
}

/**
 * `<dataDir>/run/control.json` tells the CLI that a hub runs on this data dir and how to reach its admin
 * API: a data-changing command must go through the running hub (two writers corrupt lowdb files).
 */
export class RunFile {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'run', 'control.json');
  }

  write(info: RunInfo): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  read(): RunInfo | null {
    try {
      const info = JSON.parse(readFileSync(this.file, 'utf8')) as RunInfo;
      return typeof info.adminUrl === 'string' && typeof info.controlToken === 'string' ? info : null;
    } catch {
      return null;
    }
  }

  remove(): void {
    rmSync(this.file, { force: true });
  }
}
