import { type ChildProcess, spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';
import { openRoot, tempDataDir } from './fixtures/store-helpers.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const RUNS = 50;
const PARALLEL = 3;
/**
 * Kills land after 1 to MAX_ACKS acknowledged writes. What a kill can hit is the phase of the write cycle
 * (temp file written, fsynced, renamed, backup), the same at the 100th write as at the 2000th; a longer run
 * only spent time writing (about 6 ms per acknowledged write here).
 */
const MAX_ACKS = 250;

interface Outcome {
  acked: number[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Starts the writer (built: plain JavaScript, no loader in the child) and SIGKILLs it once it has
 * acknowledged `ackTarget` writes. `atTempFile`: then waits for the next temp file to appear in the data
 * dir and kills at that moment, in the middle of a write.
 */
async function killMidWrite(dataDir: string, ackTarget: number, atTempFile: boolean): Promise<Outcome> {
  const child: ChildProcess = spawn(
    process.execPath,
    [await built('test/core/fixtures/store-writer.ts'), dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const acked: number[] = [];
  let stderr = '';
  let partial = '';
  let armed = false;
  const watcher = atTempFile
    ? watch(dataDir, (_event, name) => {
        if (armed && name?.includes('.tmp-')) child.kill('SIGKILL');
      })
    : undefined;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) acked.push(Number(line));
    if (acked.length < ackTarget) return;
    if (atTempFile) armed = true;
    else child.kill('SIGKILL');
  });
  return new Promise((resolve) => {
    child.on('close', (_code, signal) => {
      watcher?.close();
      resolve({ acked, signal, stderr });
    });
  });
}

/** Runs whose kill left a temp file behind: proof that kills land in the middle of a write. */
let killedMidWrite = 0;

async function oneRun(run: number): Promise<void> {
  const { dir, cleanup } = await tempDataDir();
  try {
    // A random moment after the first acknowledged write; every other run at a temp file's creation.
    const ackTarget = 1 + Math.floor(Math.random() * MAX_ACKS);
    const atTempFile = run % 2 === 1;
    const { acked, signal, stderr } = await killMidWrite(dir, ackTarget, atTempFile);
    const context = `run ${run}, killed after ${acked.length} acks (target ${ackTarget}${atTempFile ? ', at a temp file' : ''}); stderr: ${stderr}`;
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
