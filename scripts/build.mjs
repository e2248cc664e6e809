#!/usr/bin/env node
// The one build step, run by `npm start` itself. Two outputs in dist/:
// 1. core/, plugins/ and drivers/ transpiled file for file (imports rewritten from .ts to .js), with the
//    assets they read at run time, for anything that imports one module of the build on its own;
// 2. over that, what `hearth start` runs: dist/core/cli/main.js and every dist/plugins/<name>/index.js bundled in one
//    esbuild pass with code splitting, libraries included, so a start reads a few dozen files instead of
//    about 950 (module resolution and loading were two thirds of the start's CPU; docs/benchmarks.md).
//    Shared code lands in dist/lib/chunks/ once, so a class is one class in the core and in every plugin,
//    and a plugin that is off is still never loaded. What is imported on first use stays a separate chunk.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
// `--out DIR` builds elsewhere (the packaging test); it must lie inside the repository, beside node_modules.
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist');
const sourceDirs = ['core', 'plugins', 'drivers'];

function walk(dir, found = []) {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'vendor') walk(full, found);
    } else found.push(full);
  }
  return found;
}

const files = sourceDirs.flatMap((d) => walk(path.join(root, d)));
const entryPoints = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const assets = files.filter((f) => !f.endsWith('.ts'));

/** Keeps every import external; relative `.ts` specifiers become `.js`. */
const externalise = {
  name: 'externalise',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const rewritten = args.path.startsWith('.') ? args.path.replace(/\.ts$/, '.js') : args.path;
      return { path: rewritten, external: true };
    });
  },
};

/**
 * Every output of the bundle (entries and chunks) sits two folders below dist/, so a module's own
 * `import.meta.url`, which it uses to find its assets, becomes its file-for-file location: the same
 * path relative to dist/ from whichever output file it ended up in.
 */
const DEPTH = '../../';
const ownUrls = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const rel = path.relative(root, args.path);
      if (rel.startsWith('..') || rel.includes('node_modules')) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const url = `new URL(${JSON.stringify(DEPTH + rel.replace(/\.ts$/, '.js'))}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/**
 * mqtt-packet (aedes' parser and writer) calls its `debug` logger about twenty times per PUBLISH. Disabled,
 * a `debug` logger still gathers each call's arguments into an array and reads a getter: a fifth of the
 * broker's garbage per message. In the bundle mqtt-packet gets a logger that is the real one when its
 * namespace is enabled at start (`DEBUG=mqtt-packet:*` keeps working) and a function doing nothing otherwise.
 */
const quietPacketDebug = {
  name: 'quiet-mqtt-packet-debug',
  setup(b) {
    b.onResolve({ filter: /^debug$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}mqtt-packet${path.sep}`)
        ? { path: 'quiet-debug', namespace: 'quiet-debug', pluginData: args.resolveDir }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'quiet-debug' }, (args) => ({
      contents: [
        "const createDebug = require('debug');",
        'const off = () => {};',
        'module.exports = (namespace) => {',
        '  const real = createDebug(namespace);',
        '  return real.enabled ? real : off;',
        '};',
      ].join('\n'),
      resolveDir: args.pluginData,
      loader: 'js',
    }));
  },
};

/**
 * Koa's dependencies carry two copies of the MIME database (1.52 under accepts, 1.54 at the top), each a
 * 200 kB JSON parsed at start. Every import of it gets the newer one, a superset of the older.
 */
const oneMimeDb = {
  name: 'one-mime-db',
  setup(b) {
    const top = path.join(root, 'node_modules/mime-db/index.js');
    b.onResolve({ filter: /^mime-db$/ }, () => ({ path: top }));
  },
};

/**
 * Left out of the bundle and loaded from node_modules as they are: native addons (they find their binary
 * from their own folder), pino-pretty (loaded by name in a worker thread when asked for) and the Matter
 * stack (large, and only loaded when the Matter bridge is on).
 */
const external = ['@node-rs/argon2', 'serialport', '@serialport/*', 'pino-pretty', '@matter/*'];

rmSync(out, { recursive: true, force: true });
const t0 = performance.now();
await build({
  entryPoints,
  outdir: out,
  outbase: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [externalise],
});
for (const file of assets) cpSync(file, path.join(out, path.relative(root, file)));
cpSync(path.join(root, 'config'), path.join(out, 'config'), { recursive: true });
cpSync(path.join(root, 'package.json'), path.join(out, 'package.json'));

const pluginEntries = readdirSync(path.join(root, 'plugins'))
  .map((name) => path.join(root, 'plugins', name, 'index.ts'))
  .filter((f) => existsSync(f));
await build({
  entryPoints: [path.join(root, 'core/cli/main.ts'), ...pluginEntries],
  outdir: out,
  outbase: root,
  chunkNames: 'lib/chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  minifyWhitespace: true,
  minifySyntax: true,
  external,
  plugins: [ownUrls, oneMimeDb, quietPacketDebug],
  // CommonJS libraries inside an ES module bundle still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __hearthRequire } from 'node:module'; const require = __hearthRequire(import.meta.url);",
  },
});

// 3. The config validators compiled ahead of time (core/config/validators.ts): ajv's standalone code for
//    every schema, bundled with the few ajv helpers it calls, so a start neither loads ajv nor compiles.
const standalone = path.join(out, 'lib', 'config-validators.cjs');
execFileSync(process.execPath, [path.join(out, 'core', 'config', 'aot.js'), standalone], {
  stdio: 'inherit',
});
await build({
  entryPoints: [standalone],
  outfile: path.join(out, 'lib', 'config-validators.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
rmSync(standalone);

if (process.argv.includes('--verbose')) {
  console.log(
    `built ${entryPoints.length} files and the start bundle to dist/ in ${Math.round(performance.now() - t0)} ms`,
  );
}
