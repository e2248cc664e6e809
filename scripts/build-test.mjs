#!/usr/bin/env node
// The build a test run starts its child processes from (test/helpers/built.ts): `scripts/build.mjs --out DIR`,
// then the scripts and test fixtures that run as processes of their own, each bundled to its own place in
// DIR with its own helpers inside but the core, plugins and drivers imported from their built files (one
// copy of the core, which finds its assets by its own URL as under `npm start`). Libraries stay imports
// from node_modules, so DIR must lie inside the repository.
//
//   node scripts/build-test.mjs --out DIR
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const outArg = process.argv.indexOf('--out');
if (outArg < 0 || !process.argv[outArg + 1]) throw new Error('usage: build-test.mjs --out DIR');
const out = path.resolve(process.argv[outArg + 1]);

/** Started as processes of their own by the tests (paths from the repository root). */
const FIXTURES = [
  'test/core/fixtures/run-hub.ts',
  'test/core/fixtures/plugins/counter/index.ts',
  'test/core/fixtures/store-writer.ts',
  'test/core/fixtures/pretty-loaded.ts',
  'scripts/demo.ts',
];

/** What scripts/build.mjs builds file for file. */
const BUILT = ['core', 'plugins', 'drivers'].map((d) => path.join(root, d) + path.sep);

function fixtureImports(entry) {
  return {
    name: 'fixture-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (!args.path.startsWith('.')) return { path: args.path, external: true };
        const target = path.resolve(args.resolveDir, args.path);
        if (!BUILT.some((d) => target.startsWith(d))) return undefined;
        // The build mirrors the repository: the path from the entry's folder is the path from its output's.
        const fromEntry = path.relative(path.dirname(entry), target).replace(/\.ts$/, '.js');
        return { path: fromEntry.startsWith('.') ? fromEntry : `./${fromEntry}`, external: true };
      });
    },
  };
}

execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), '--out', out], { stdio: 'inherit' });
await Promise.all(
  FIXTURES.map((f) => {
    const entry = path.join(root, f);
    return build({
      entryPoints: [entry],
      outfile: path.join(out, f.replace(/\.ts$/, '.js')),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      plugins: [fixtureImports(entry)],
    });
  }),
);
