import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HearthError } from '../errors.ts';
import type { PluginDefinition } from './types.ts';

// biome-ignore lint/suspicious/noExplicitAny: plugins are heterogeneous; each validates its own config type
export type AnyPlugin = PluginDefinition<any, any>;

const NAME = /^[a-z][a-z0-9-]*$/;
const VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/**
 * Checks a plugin's metadata before any of its code runs: the object's shape, the name against its folder
 * (Home Assistant's "domain does not match dir name"), and that requirements are well-formed.
 */
export function checkMetadata(value: unknown, folder: string | null): string[] {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null) return ['default export is not a plugin object'];
  const p = value as Record<string, unknown>;
  if (typeof p.name !== 'string' || !NAME.test(p.name)) problems.push('name must match /^[a-z][a-z0-9-]*$/');
  else if (folder !== null && p.name !== folder)
    problems.push(`name "${p.name}" does not match folder "${folder}"`);
  if (typeof p.version !== 'string' || !VERSION.test(p.version)) problems.push('version must be semver');
  if (typeof p.description !== 'string' || p.description.length === 0)
    problems.push('description is missing');
  if (typeof p.configSchema !== 'object' || p.configSchema === null)
    problems.push('configSchema must be an object');
  if (typeof p.start !== 'function') problems.push('start(ctx) is missing');
  for (const key of ['requires', 'optional'] as const) {
    const list = p[key];
    if (list !== undefined && (!Array.isArray(list) || !list.every((n) => typeof n === 'string'))) {
      problems.push(`${key} must be an array of plugin names`);
    }
  }
  if (p.commands !== undefined && !Array.isArray(p.commands)) problems.push('commands must be an array');
  return problems;
}

export class PluginMetadataError extends HearthError {
  constructor(message: string) {
    super('plugin_metadata_invalid', message);
  }
}

// From sources (tsx, tests) plugins are index.ts; from the build in dist/ they are index.js.
const ENTRY = import.meta.url.endsWith('.ts') ? 'index.ts' : 'index.js';

/** Folder names under `dir` that hold a plugin entry file. */
export function pluginFolders(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, ENTRY)))
    .map((d) => d.name)
    .sort();
}

/**
 * Imports `plugins/<name>/index.ts` for every folder `include` accepts (all by default) and checks each
 * plugin's metadata. A disabled plugin is never imported: its code costs no memory and cannot fail.
 */
export async function discoverPlugins(
  dir: string,
  include: (folder: string) => boolean = () => true,
): Promise<AnyPlugin[]> {
  const found: AnyPlugin[] = [];
  for (const folder of pluginFolders(dir).filter(include)) {
    const entry = path.join(dir, folder, ENTRY);
    const mod = (await import(pathToFileURL(entry).href)) as { default?: unknown };
    const problems = checkMetadata(mod.default, folder);
    if (problems.length > 0) {
      throw new PluginMetadataError(`plugins/${folder}: ${problems.join('; ')}`);
    }
    found.push(mod.default as AnyPlugin);
  }
  const names = new Set<string>();
  for (const p of found) {
    if (names.has(p.name)) throw new PluginMetadataError(`two plugins are named "${p.name}"`);
    names.add(p.name);
  }
  return found;
}
