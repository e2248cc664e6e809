import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One hub per data directory: two processes writing the same lowdb files would corrupt them. The lock
 * is a pid file created exclusively; a lock left by a dead process (kill -9, power cut) is taken over.
 */
export class DataDirLock {
  readonly file: string;
  private held = false;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'hub.lock');
  }

  /** The pid of the live process holding the lock, if any. */
  holder(): number | null {
    try {
      const pid = Number(readFileSync(this.file, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  acquire(): void {
    try {
      writeFileSync(this.file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = this.holder();
      if (pid !== null && pid !== process.pid) {
        throw new Error(`another Hearth process (pid ${pid}) is using ${path.dirname(this.file)}`);
      }
      if (pid === process.pid)
        throw new Error(`this process already runs a hub on ${path.dirname(this.file)}`);
      writeFileSync(this.file, `${process.pid}\n`, { mode: 0o600 });
    }
    this.held = true;
  }

  release(): void {
    if (!this.held) return;
    rmSync(this.file, { force: true });
    this.held = false;
  }
}
