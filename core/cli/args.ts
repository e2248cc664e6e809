import { parseArgs } from 'node:util';
import { HearthError } from '../errors.ts';
import type { CliCommand, CliInput, CliIo, CliOption } from '../plugin/types.ts';

/** Options every command takes. */
export const globalOptions: Record<string, CliOption> = {
  config: { type: 'string', description: 'Configuration file (JSON); also HEARTH_CONFIG' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
  version: { type: 'boolean', description: 'Print the version' },
};

/** A problem with the arguments: printed with the command's usage, exit code 2. */
export class UsageError extends HearthError {
  constructor(
    message: string,
    readonly command: CliCommand | null,
  ) {
    super('cli_usage', message);
  }
}

type ParseOptions = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

const forParser = (options: Record<string, CliOption>): ParseOptions =>
  Object.fromEntries(
    Object.entries(options).map(([name, o]) => [
      name,
      { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) },
    ]),
  );

/**
 * The global options and the leading words, before the commands are known (plugins add theirs once the
 * config says which plugins are on). Unknown options are tolerated here; the command's parse is strict.
 */
export function parseGlobal(argv: string[]): {
  config?: string;
  help: boolean;
  version: boolean;
  words: string[];
} {
  const { values, positionals } = parseArgs({
    args: argv,
    options: forParser(globalOptions),
    strict: false,
    allowPositionals: true,
  });
  return {
    ...(typeof values.config === 'string' ? { config: values.config } : {}),
    help: values.help === true,
    version: values.version === true,
    words: positionals,
  };
}

/** The command whose name starts the words, longest name first (`site create` before `site`). */
export function findCommand<C extends CliCommand>(commands: readonly C[], words: string[]): C | undefined {
  return commands
    .filter((c) => c.name.split(' ').every((w, i) => words[i] === w))
    .sort((a, b) => b.name.length - a.name.length)[0];
}

/**
 * Parses argv for one command, strictly: its options and the global ones anywhere, `--` ending options.
 * Throws UsageError; `help` is true when `--help` was given (the counts are then not checked).
 */
export function parseCommand(command: CliCommand, argv: string[]): { input: CliInput; help: boolean } {
  const options = { ...(command.options ?? {}), ...globalOptions };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: forParser(options), strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message, command);
  }
  const nameWords = command.name.split(' ');
  if (!nameWords.every((w, i) => parsed.positionals[i] === w))
    throw new UsageError(`options go after the command name "${command.name}"`, command);
  const values: CliInput['values'] = Object.create(null) as CliInput['values'];
  for (const [k, v] of Object.entries(parsed.values))
    if (!(k in globalOptions)) values[k] = v as CliInput['values'][string];
  const input: CliInput = { positionals: parsed.positionals.slice(nameWords.length), values };
  if (parsed.values.help === true) return { input, help: true };
  const [min, max] = command.positionals ?? [0, 0];
  const n = input.positionals.length;
  if (n < min)
    throw new UsageError(min === 1 && max === 1 ? 'missing argument' : 'missing arguments', command);
  if (max !== undefined && n > max)
    throw new UsageError(`unexpected argument: ${input.positionals.slice(max).join(' ')}`, command);
  const problem = command.check?.(input);
  if (problem) throw new UsageError(problem, command);
  return { input, help: false };
}

/** `hearth <command> --help`. */
export function commandHelp(command: CliCommand): string[] {
  const lines = [`Usage: ${command.usage}`, '', command.summary];
  const options = { ...(command.options ?? {}), ...globalOptions };
  lines.push('', 'Options:');
  for (const [name, o] of Object.entries(options)) {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ' <value>' : ''}`;
    lines.push(`  ${flag.padEnd(24)} ${o.description}${o.multiple ? ' (repeatable)' : ''}`);
  }
  return lines;
}

/**
 * Parses the words after a command's name and runs it, as `hearth` does once a hub is reached: a usage
 * error prints the problem and the usage and returns 2 without running anything.
 */
export async function runCommand(command: CliCommand, args: string[], io: CliIo): Promise<number> {
  try {
    const { input, help } = parseCommand(command, [...command.name.split(' '), ...args]);
    if (!help) return await command.run(input, io);
    for (const line of commandHelp(command)) io.out(line);
    return 0;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`hearth: ${e.message}`);
    io.err(`usage: ${command.usage}`);
    return 2;
  }
}
