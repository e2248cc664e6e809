import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openRoot, tempDataDir } from './fixtures/store-helpers.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const writer = fileURLToPath(new URL('./fixtures/store-writer.ts', import.meta.url));

const RUNS = 50;
const PARALLEL = 3;

interface Outcome {
  acked: number[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts the writer, waits until it has acknowledged `ackTarget` writes, then SIGKILLs it. */
function killMidWrite(dataDir: string, ackTarget: number): Promise<Outcome> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', writer, dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acked: number[] = [];
  let stderr = '';
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) acked.push(Number(line));
    if (acked.length >= ackTarget) child.kill('SIGKILL');
  });
  return new Promise((resolve) => {
    child.on('close', (_code, signal) => resolve({ acked, signal, stderr }));
  });
}

/** Runs whose kill left a temp file behind: proof that kills land in the middle of a write. */
let killedMidWrite = 0;

async function oneRun(run: number): Promise<void> {
  const { dir, cleanup } = await tempDataDir();
  try {
    // A random moment: anywhere from the first acknowledged write to two thousand in.
    const ackTarget = 1 + Math.floor(Math.random() * 2000);
    const { acked, signal, stderr } = await killMidWrite(dir, ackTarget);
    const context = `run ${run}, killed after ${acked.length} acks (target ${ackTarget}); stderr: ${stderr}`;
    expect(signal, context).toBe('SIGKILL');

    const file = join(dir, 'core.sigkill.json');
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as { acked: number[]; records: unknown[] };
    const stored = new Set(onDisk.acked);
    const lost = acked.filter((n) => !stored.has(n));
    expect(lost, context).toEqual([]);
    expect(onDisk.records, context).toHaveLength(1000);

    if ((await readdir(dir)).some((f) => f.includes('.tmp-'))) killedMidWrite += 1;

    // Reopening needs no recovery and clears the dead writer's temp files.
    const { root, lines } = await openRoot(dir);
    const doc = await root.forOwner('core').open('sigkill', { acked: [] as number[] });
    expect(doc.data.acked.length, context).toBeGreaterThanOrEqual(acked.length);
    expect(
      lines.filter((l) => (l.level as number) >= 50),
      context,
    ).toEqual([]);
    const leftovers = (await readdir(dir)).filter(
      (f) => f !== 'core.sigkill.json' && f !== 'core.sigkill.json.bak',
    );
    expect(leftovers, context).toEqual([]);
    await root.close();
  } finally {
    await cleanup();
  }
}

describe('store durability under SIGKILL', () => {
  it(`a writer killed at a random moment ${RUNS} times leaves a parsable file with every acknowledged write`, async () => {
    let next = 0;
    const worker = async () => {
      while (next < RUNS) await oneRun(next++);
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    console.log(`killed mid-write (temp file left): ${killedMidWrite}/${RUNS}`);
    expect(killedMidWrite).toBeGreaterThan(0);
  }, 240_000);
});
