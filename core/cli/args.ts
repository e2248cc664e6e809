/** Splits argv into positional words and `--flag` / `--flag value` options (no dependency needed). */
export interface ParsedArgs {
  words: string[];
  flags: Map<string, string | true>;
}

const valued = new Set(['config']);

export function parseArgs(argv: string[]): ParsedArgs {
  const words: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (valued.has(a.slice(2)) && i + 1 < argv.length) flags.set(a.slice(2), argv[++i] as string);
      else flags.set(a.slice(2), true);
    } else words.push(a);
  }
  return { words, flags };
}
