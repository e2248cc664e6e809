import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HearthError } from '../errors.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Who holds the lock: a pid alone says little after a reboot (pids are reused), so its start and boot too. */
export interface LockOwner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot when the process started; null off Linux. */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id: changes at every boot (a power cut included); null off Linux. */
  boot: string | null;
}

const readProc = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/** proc(5): the command name (field 2) may hold spaces and parentheses, so fields are counted after the last `)`. */
export function processStart(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return rest[22 - 3] ?? null;
}

export const bootId = (): string | null => readProc('/proc/sys/kernel/random/boot_id');

export function currentOwner(): LockOwner {
  return { pid: process.pid, start: processStart(process.pid), boot: bootId() };
}

/** The lock's content; a bare pid is the format of earlier versions. */
function parseOwner(text: string): LockOwner | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), start: null, boot: null };
  try {
    const o = JSON.parse(trimmed) as Partial<LockOwner>;
    if (!Number.isInteger(o.pid) || (o.pid as number) <= 0) return null;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return { pid: o.pid as number, start: str(o.start), boot: str(o.boot) };
  } catch {
    return null;
  }
}

/**
 * Whether the process a lock names still runs: its pid is alive, in this boot, and started when the lock says.
 * A pid taken by another process after a power cut (or by this very hub as PID 1 in a container) is stale.
 */
export function ownerAlive(owner: LockOwner): boolean {
  if (!alive(owner.pid)) return false;
  const boot = bootId();
  if (owner.boot && boot && owner.boot !== boot) return false;
  const start = processStart(owner.pid);
  if (owner.start && start && owner.start !== start) return false;
  return true;
}

/**
 * One hub per data directory: two processes writing the same lowdb files would corrupt them. The lock file
 * names its holder by pid, process start time and boot id, created exclusively; a lock whose holder is gone
 * (kill -9, power cut, pid reused since) is taken over.
 */
export class DataDirLock {
  readonly file: string;
  private held: string | null = null;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'hub.lock');
  }

  /** The pid of the live process holding the lock, if any. */
  holder(): number | null {
    try {
      const owner = parseOwner(readFileSync(this.file, 'utf8'));
      return owner && ownerAlive(owner) ? owner.pid : null;
    } catch {
      return null;
    }
  }

  acquire(): void {
    const content = `${JSON.stringify(currentOwner())}\n`;
    for (let attempt = 0; ; attempt++) {
      try {
        writeFileSync(this.file, content, { flag: 'wx', mode: 0o600 });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      }
      const pid = this.holder();
      if (pid === process.pid)
        throw new HearthError(
          'data_dir_locked',
          `this process already runs a hub on ${path.dirname(this.file)}`,
        );
      if (pid !== null)
        throw new HearthError(
          'data_dir_locked',
          `another Hearth process (pid ${pid}) is using ${path.dirname(this.file)}`,
        );
      // Stale: remove and create again exclusively (one retry; a start that loses the race sees the winner).
      rmSync(this.file, { force: true });
    }
    this.held = content;
  }

  release(): void {
    if (this.held === null) return;
    try {
      // Only our own lock: never one another hub took over after judging ours stale.
      if (readFileSync(this.file, 'utf8') === this.held) rmSync(this.file, { force: true });
    } catch {
      // Already gone, or the directory is unreadable: nothing of ours to remove.
    }
    this.held = null;
  }
}
