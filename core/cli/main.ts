import { existsSync } from 'node:fs';
import { ConfigError } from '../config/types.ts';
import { Hub } from '../hub.ts';
import { exitAfterOutput, exitOnSignals, tolerateBrokenStdio } from '../lifecycle/signals.ts';
import { PluginMetadataError } from '../plugin/discover.ts';
import type { CliCommand, CliInput } from '../plugin/types.ts';
import { VERSION } from '../version.ts';
import { openAdmin } from './admin-client.ts';
import { commandHelp, findCommand, parseCommand, parseGlobal, UsageError } from './args.ts';
import { type Loaded, loadAll } from './boot.ts';
import { coreCommands } from './commands.ts';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** A command that needs the loaded config but not the admin API. */
interface LocalCommand extends CliCommand {
  local: (input: CliInput, loaded: Loaded, all: CliCommand[]) => Promise<number>;
}

const unused = async () => 0;

const localCommands: LocalCommand[] = [
  {
    name: 'start',
    usage: 'hearth start',
    summary: 'Run the hub (npm start)',
    run: unused,
    async local(_input, loaded) {
      const hub = new Hub({
        config: loaded.config,
        plugins: loaded.plugins,
        adminKey: process.env.HEARTH_ADMIN_KEY,
      });
      exitOnSignals(hub, { graceMs: loaded.config.lifecycle.shutdownGraceMs, err });
      await hub.start();
      return -1; // keep running until a signal
    },
  },
  {
    name: 'config check',
    usage: 'hearth config check',
    summary: 'Validate the configuration and exit',
    run: unused,
    async local(_input, loaded) {
      out(`config OK: data ${loaded.config.dataDir}, ${loaded.plugins.length} plugins`);
      return 0;
    },
  },
  {
    name: 'help',
    usage: 'hearth help [command]',
    summary: 'List the commands, or show one command’s options',
    positionals: [0],
    run: unused,
    async local(input, _loaded, all) {
      const command = input.positionals.length > 0 ? findCommand(all, input.positionals) : undefined;
      if (input.positionals.length > 0 && !command)
        throw new UsageError(`unknown command: ${input.positionals.join(' ')}`, null);
      for (const line of command ? commandHelp(command) : overview(all)) out(line);
      return 0;
    },
  },
];

function overview(commands: CliCommand[]): string[] {
  return [
    'Usage: hearth <command> [options] [--config PATH]',
    '',
    ...commands.map((c) => `  ${c.usage.replace(/^hearth /, '').padEnd(34)} ${c.summary}`),
    '',
    '`hearth <command> --help` shows a command’s options; `hearth --version` prints the version.',
  ];
}

function printUsageError(e: UsageError, all: CliCommand[]): number {
  err(`hearth: ${e.message}`);
  if (e.command) err(`usage: ${e.command.usage}   (hearth ${e.command.name} --help)`);
  else for (const line of overview(all)) err(line);
  return 2;
}

export async function main(argv: string[]): Promise<number> {
  const global = parseGlobal(argv);
  if (global.version && global.words.length === 0) {
    out(`hearth ${VERSION}`);
    return 0;
  }
  let loaded: Loaded;
  try {
    loaded = await loadAll({ file: global.config });
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
  const all: CliCommand[] = [
    ...localCommands,
    ...coreCommands,
    ...loaded.plugins.flatMap((p) => p.commands ?? []),
  ];
  if (global.words.length === 0) {
    if (global.help) {
      for (const line of overview(all)) out(line);
      return 0;
    }
    return printUsageError(new UsageError('which command?', null), all);
  }
  const command = findCommand(all, global.words);
  if (!command)
    return printUsageError(new UsageError(`unknown command: ${global.words.join(' ')}`, null), all);
  // Every argument is checked before anything starts: a usage error never reaches a hub.
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(command, argv);
  } catch (e) {
    if (e instanceof UsageError) return printUsageError(e, all);
    throw e;
  }
  if (parsed.help) {
    for (const line of commandHelp(command)) out(line);
    return 0;
  }
  try {
    if ('local' in command) return await (command as LocalCommand).local(parsed.input, loaded, all);
  } catch (e) {
    if (e instanceof UsageError) return printUsageError(e, all);
    throw e;
  }
  if (command.readsOnly && !existsSync(loaded.config.dataDir)) {
    err(`hearth: no data directory at ${loaded.config.dataDir} (set HEARTH_DATA_DIR or --config)`);
    return 1;
  }
  const session = await openAdmin(loaded, err);
  // An interrupted command still stops its temporary hub, so its data files are flushed.
  exitOnSignals(
    { stop: () => session.close() },
    { graceMs: loaded.config.lifecycle.shutdownGraceMs, err, signalExitCode: 1 },
  );
  try {
    return await command.run(parsed.input, { admin: session.admin, out, err });
  } finally {
    await session.close();
  }
}

tolerateBrokenStdio();
main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) exitAfterOutput(code);
  },
  (e: unknown) => {
    err(`hearth: ${(e as Error).message}`);
    exitAfterOutput(1);
  },
);
