/**
 * HEARTH_* environment overrides. Short aliases cover the common settings; any setting can be reached as
 * HEARTH_<PATH> with `__` between levels (HEARTH_PLUGINS__AUTH__PORT=0). Words inside a level are joined
 * in camelCase (HEARTH_STORE__COALESCE_MS → store.coalesceMs), except a plugin's name, which keeps its
 * dashes (HEARTH_PLUGINS__MQTT_DEVICES__ENABLED → plugins.mqtt-devices.enabled). Values are parsed as JSON
 * when they can be.
 */
const aliases: Record<string, string> = {
  HEARTH_DATA_DIR: 'dataDir',
  HEARTH_HOST: 'host',
  HEARTH_PORT: 'http.main.port',
  HEARTH_HTTP_PORT: 'http.main.port',
  HEARTH_ADMIN_PORT: 'http.admin.port',
  HEARTH_MQTT_PORT: 'mqtt.port',
  HEARTH_MQTT_URL: 'mqtt.external.url',
  HEARTH_LOG_LEVEL: 'log.level',
};

/** Variables that are not config settings. */
const notSettings = new Set(['HEARTH_CONFIG', 'HEARTH_ADMIN_KEY']);

const camel = (word: string) => word.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** Plugin folder names are lower case with dashes (`mqtt-devices`), never camelCase. */
const pluginName = (word: string) => word.toLowerCase().replace(/_/g, '-');

function settingPath(levels: string[]): string[] {
  return levels.map((level, i) => (i === 1 && levels[0] === 'PLUGINS' ? pluginName(level) : camel(level)));
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export interface EnvOverride {
  variable: string;
  path: string[];
  value: unknown;
}

export function envOverrides(env: NodeJS.ProcessEnv): EnvOverride[] {
  const out: EnvOverride[] = [];
  for (const [variable, raw] of Object.entries(env)) {
    if (!variable.startsWith('HEARTH_') || raw === undefined || notSettings.has(variable)) continue;
    const alias = aliases[variable];
    let path: string[] | undefined;
    if (alias) path = alias.split('.');
    else if (variable.includes('__')) path = settingPath(variable.slice('HEARTH_'.length).split('__'));
    if (!path) continue;
    // A data dir or host is always a string, even when it looks like a number.
    const value = path.length === 1 ? raw : parseValue(raw);
    out.push({ variable, path, value });
  }
  return out;
}

export function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}
