/**
 * The build of this test run (scripts/build-test.mjs): `scripts/build.mjs` (what `npm start` runs, with
 * the file-for-file tree beside it) plus the scripts and test fixtures that run as processes of their own. A child started from it runs plain JavaScript: under tsx every child spent about 2.5 s of CPU
 * loading the sources through tsx's loader hooks before doing anything, from the build about 0.4 s.
 *
 * Built once per run, on first use (a run that needs no child pays nothing): test/setup/build-dir.ts gives
 * every worker the same folder, the first worker to ask builds, the others wait for its marker file.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

async function buildInto(dist: string): Promise<void> {
  await promisify(execFile)(process.execPath, ['scripts/build-test.mjs', '--out', dist], { cwd: root });
}

/**
 * For `beforeAll(buildReady, BUILD_TIMEOUT)` in a file whose tests start children: the first file of a run
 * waits for the build there, not inside a test's own bound (about 9 s of CPU, minutes on a loaded machine).
 */
export const BUILD_TIMEOUT = 600_000;

let mine: Promise<string> | undefined;

/** The folder of this run's build (the `--out` of scripts/build.mjs), built if no worker has yet. */
export function builtDist(): Promise<string> {
  mine ??= ensureBuilt();
  return mine;
}

async function ensureBuilt(): Promise<string> {
  const dir = inject('buildDir');
  const dist = path.join(dir, 'dist');
  const done = path.join(dir, 'built');
  const failed = path.join(dir, 'failed');
  let builder = false;
  try {
    mkdirSync(path.join(dir, 'lock'));
    builder = true;
  } catch {
    // Another worker got the lock and is building.
  }
  if (builder) {
    try {
      await buildInto(dist);
      writeFileSync(done, '');
    } catch (err) {
      writeFileSync(failed, String(err instanceof Error ? (err.stack ?? err.message) : err));
      throw err;
    }
    return dist;
  }
  // A file that appears, not a time: the hook timeout bounds a build that never ends.
  while (!existsSync(done)) {
    if (existsSync(failed)) throw new Error(`the test build failed: ${readFileSync(failed, 'utf8')}`);
    await sleep(100);
  }
  return dist;
}

/** Resolves once this run's build is there (for a `beforeAll`). */
export async function buildReady(): Promise<void> {
  await builtDist();
}

/** Where a source file of the repository (`core/cli/main.ts`) lies in the build, as JavaScript. */
export async function built(source: string): Promise<string> {
  return path.join(await builtDist(), source.replace(/\.ts$/, '.js'));
}
