/**
 * Global setup: one empty folder per run for test/helpers/built.ts, shared by every worker and removed at
 * the end. Inside the repository, so the build finds node_modules (its native addons load from there).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    buildDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const output = path.resolve(import.meta.dirname, '../output');
  mkdirSync(output, { recursive: true });
  const dir = mkdtempSync(path.join(output, 'build-'));
  project.provide('buildDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
