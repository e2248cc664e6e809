/**
 * Run by the build (scripts/build.mjs) from dist/: writes the standalone source of every config validator
 * a start needs (the core's, the loader-only slice of a disabled plugin, each plugin's slice) to the file
 * named on the command line. See validators.ts.
 */
import { writeFileSync } from 'node:fs';
import { pluginsDir } from '../cli/boot.ts';
import { discoverPlugins } from '../plugin/discover.ts';
import { loaderOnlySchema, pluginSliceSchema } from './load.ts';
import { coreSchema } from './schema.ts';
import { standaloneSource } from './validators.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: aot.js <output file>');
const plugins = await discoverPlugins(pluginsDir);
writeFileSync(
  out,
  standaloneSource([coreSchema, loaderOnlySchema, ...plugins.map((p) => pluginSliceSchema(p))]),
);
