import { ConfigError } from '../config/types.ts';
import { Hub } from '../hub.ts';
import { exitOnSignals } from '../lifecycle/signals.ts';
import { PluginMetadataError } from '../plugin/discover.ts';
import type { CliCommand } from '../plugin/types.ts';
import { openAdmin } from './admin-client.ts';
import { parseArgs } from './args.ts';
import { type Loaded, loadAll } from './boot.ts';
import { coreCommands } from './commands.ts';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

async function start(loaded: Loaded): Promise<number> {
  const hub = new Hub({
    config: loaded.config,
    plugins: loaded.plugins,
    adminKey: process.env.HEARTH_ADMIN_KEY,
  });
  exitOnSignals(hub, loaded.config.lifecycle.shutdownGraceMs, err);
  await hub.start();
  return -1; // keep running until a signal
}

function help(commands: CliCommand[]): void {
  out('Usage: hearth <command> [--config PATH]');
  out('');
  out('  start                      Run the hub (npm start)');
  out('  config check               Validate the configuration and exit');
  for (const c of commands) out(`  ${c.usage.replace(/^hearth /, '').padEnd(26)} ${c.summary}`);
}

export async function main(argv: string[]): Promise<number> {
  const { words, flags } = parseArgs(argv);
  const file = typeof flags.get('config') === 'string' ? (flags.get('config') as string) : undefined;
  let loaded: Loaded;
  try {
    loaded = await loadAll({ file });
  } catch (e) {
    if (e instanceof ConfigError) {
      for (const i of e.issues) err(`${i.path} ${i.message}`);
      return 2;
    }
    if (e instanceof PluginMetadataError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
  const commands = [...coreCommands, ...loaded.plugins.flatMap((p) => p.commands ?? [])];
  const [first = 'help', second] = words;
  if (first === 'start') return start(loaded);
  if (first === 'config' && second === 'check') {
    out(`config OK: data ${loaded.config.dataDir}, ${loaded.plugins.length} plugins`);
    return 0;
  }
  if (first === 'help' || flags.has('help')) {
    help(commands);
    return 0;
  }
  // Longest match first: `site create` before `site`.
  const command = commands
    .filter((c) => {
      const name = c.name.split(' ');
      return name.every((w, i) => words[i] === w);
    })
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (!command) {
    err(`unknown command: ${words.join(' ')}`);
    help(commands);
    return 2;
  }
  const session = await openAdmin(loaded, err);
  try {
    const rest = argv.filter((a) => a !== '--config' && a !== file);
    const args = rest.slice(command.name.split(' ').length);
    return await command.run(args, { admin: session.admin, out, err });
  } finally {
    await session.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    err(`hearth: ${(e as Error).message}`);
    process.exit(1);
  },
);
