import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pluginEnabled, readConfigSources, validateConfig } from '../config/load.ts';
import type { HearthConfig } from '../config/types.ts';
import { loadPrecompiledValidators } from '../config/validators.ts';
import { type AnyPlugin, discoverPlugins, pluginFolders } from '../plugin/discover.ts';

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
  const dir = opts.dir ?? pluginsDir;
  const sources = {
    file: opts.file,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.overrides ? { overrides: opts.overrides } : {}),
  };
  // Which plugins are enabled is known before their schemas; their settings are read again with them.
  const first = readConfigSources(sources);
  await loadPrecompiledValidators();
  const plugins = await discoverPlugins(dir, (name) => pluginEnabled(first, name));
  const raw = readConfigSources({ ...sources, plugins });
  const disabled = pluginFolders(dir).filter((name) => !pluginEnabled(raw, name));
  const config = validateConfig(raw, plugins, disabled);
  config.dataDir = path.resolve(config.dataDir);
  return { config, plugins };
}
