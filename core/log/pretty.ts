/**
 * Readable log lines for a terminal: `12:04:05.123 INFO  lighting: light switched id=3`. Journald and
 * files get pino's JSON unchanged; only an interactive terminal gets this.
 */

const LEVELS: Record<number, { label: string; color: string }> = {
  10: { label: 'TRACE', color: '90' },
  20: { label: 'DEBUG', color: '36' },
  30: { label: 'INFO ', color: '32' },
  40: { label: 'WARN ', color: '33' },
  50: { label: 'ERROR', color: '31' },
  60: { label: 'FATAL', color: '35' },
};

/** Fields every line has, shown in the prefix or not at all. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'err']);

export function prettyLine(jsonLine: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = LEVELS[entry.level as number] ?? { label: String(entry.level).padEnd(5), color: '0' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const name = typeof entry.name === 'string' ? `${printable(entry.name)}: ` : '';
  const fields = Object.entries(entry)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? quoteIfNeeded(v) : JSON.stringify(v)}`);
  const head = [
    paint('2', time),
    paint(level.color, level.label),
    `${name}${printable(String(entry.msg ?? ''))}`,
  ];
  if (fields.length) head.push(paint('2', printable(fields.join(' '))));
  let text = head.join(' ');
  const err = entry.err as { stack?: unknown; message?: unknown } | undefined;
  if (err && typeof err === 'object') {
    const detail = typeof err.stack === 'string' ? err.stack : String(err.message ?? '');
    text += `\n${printable(detail).replace(/^/gm, '    ')}`;
  }
  return `${text}\n`;
}

/** Control characters from outside input must not drive the terminal (escape sequences). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

function printable(s: string): string {
  return s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function quoteIfNeeded(s: string): string {
  return /^[\w.:/@+[\]-]+$/.test(s) ? s : JSON.stringify(s);
}
