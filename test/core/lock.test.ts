import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootId, DataDirLock, processStart } from '../../core/lifecycle/lock.ts';

const root = path.resolve(import.meta.dirname, '../..');
const linux = existsSync('/proc/self/stat');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'hearth-lock-'));
const lockFile = (dir: string) => path.join(dir, 'hub.lock');

/** A live process that is not a hub (what a reused pid points at after a power cut). */
async function unrelatedProcess(): Promise<number> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  return child.pid as number;
}

describe.skipIf(!linux)('the data directory lock after a power cut', () => {
  it('a stale lock whose pid now belongs to an unrelated live process does not block the start', async () => {
    const dir = dataDir();
    const pid = await unrelatedProcess();
    // Written by a hub of this boot that died; its pid was reused by `sleep`, which started later.
    writeFileSync(lockFile(dir), JSON.stringify({ pid, start: '1', boot: bootId() }));
    const lock = new DataDirLock(dir);
    expect(lock.holder()).toBeNull();
    lock.acquire();
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it('a stale lock naming our own pid from a previous boot (PID 1 in a container) does not block the start', () => {
    const dir = dataDir();
    writeFileSync(
      lockFile(dir),
      JSON.stringify({ pid: process.pid, start: processStart(process.pid), boot: 'an-earlier-boot' }),
    );
    const lock = new DataDirLock(dir);
    expect(lock.holder()).toBeNull();
    lock.acquire();
    lock.release();
  });

  it('a stale lock naming our own pid with another start time does not block the start', () => {
    const dir = dataDir();
    writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid, start: '1', boot: bootId() }));
    new DataDirLock(dir).acquire();
  });

  it('a live hub holding the lock still blocks a second one, in another process and in this one', async () => {
    const dir = dataDir();
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import { DataDirLock } from './core/lifecycle/lock.ts';
         new DataDirLock(process.argv[1]).acquire(); console.log('HELD'); setInterval(() => {}, 1000);`,
        dir,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(holder);
    await new Promise<void>((resolve) =>
      holder.stdout?.on('data', (c: Buffer) => c.toString().includes('HELD') && resolve()),
    );
    const second = new DataDirLock(dir);
    expect(second.holder()).toBe(holder.pid);
    expect(() => second.acquire()).toThrow(`another Hearth process (pid ${holder.pid})`);

    const mine = dataDir();
    new DataDirLock(mine).acquire();
    expect(() => new DataDirLock(mine).acquire()).toThrow('this process already runs a hub');
  });

  it('release leaves alone a lock another hub has taken over', () => {
    const dir = dataDir();
    const lock = new DataDirLock(dir);
    lock.acquire();
    writeFileSync(lockFile(dir), JSON.stringify({ pid: 999999, start: '5', boot: bootId() }));
    lock.release();
    expect(existsSync(lockFile(dir))).toBe(true);
  });
});
