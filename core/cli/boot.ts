import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readConfigSources, validateConfig } from '../config/load.ts';
import type { HearthConfig } from '../config/types.ts';
import { type AnyPlugin, discoverPlugins } from '../plugin/discover.ts';

export const pluginsDir = fileURLToPath(new URL('../../plugins/', import.meta.url));

export interface Loaded {
  config: HearthConfig;
  plugins: AnyPlugin[];
}

/** Discovers plugins, then reads and validates the config against the core's and every plugin's schema. */
export async function loadAll(opts: {
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
  dir?: string;
}): Promise<Loaded> {
  const plugins = await discoverPlugins(opts.dir ?? pluginsDir);
  const raw = readConfigSources({
    file: opts.file,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.overrides ? { overrides: opts.overrides } : {}),
  });
  const config = validateConfig(raw, plugins);
  config.dataDir = path.resolve(config.dataDir);
  return { config, plugins };
}
