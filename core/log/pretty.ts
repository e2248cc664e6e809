/**
 * Readable log lines for a terminal, made by pino-pretty (the pino project's own formatter):
 * `[12:04:05.123] INFO: lighting: light switched {"light":3}`, an error's stack on the lines below.
 * Journald and files get pino's JSON unchanged; only an interactive terminal gets this (docs/logging.md).
 */
import { createRequire } from 'node:module';
import type { PrettyOptions } from 'pino-pretty';

type Pretty = (entry: Record<string, unknown>) => string;

/**
 * The formatter for one terminal. pino-pretty is loaded here, on first use, and never on the way to a
 * pipe, a socket or a file: it costs about a fifth of a second of start-up, which a service under systemd
 * should not pay for a format it never writes.
 */
export function prettyFormatter(color: boolean): (jsonLine: string) => string {
  const require = createRequire(import.meta.url);
  const { prettyFactory } = require('pino-pretty') as {
    prettyFactory: (opts: PrettyOptions) => Pretty;
  };
  const pretty = prettyFactory({
    colorize: color,
    // Local time, to the millisecond: a terminal is read by someone in the room.
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    // The source (the child logger's name: core, lighting, drv:hue) before the message.
    messageFormat: '{if name}{name}: {end}{msg}',
    singleLine: true,
  });
  return (jsonLine) => {
    let entry: unknown;
    try {
      entry = JSON.parse(jsonLine);
    } catch {
      return jsonLine;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return jsonLine;
    return pretty(printable(entry) as Record<string, unknown>);
  };
}

/** Control characters from outside input must not drive the terminal (escape sequences): shown escaped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

const escapeControls = (s: string) =>
  s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A copy of a parsed line with every string (keys too) made safe to print; newlines stay (stacks). */
function printable(v: unknown): unknown {
  if (typeof v === 'string') return escapeControls(v);
  if (Array.isArray(v)) return v.map(printable);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    // defineProperty: a key `__proto__` from outside input stays a plain key.
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, escapeControls(k), {
        value: printable(x),
        enumerable: true,
        writable: true,
      });
    return out;
  }
  return v;
}
