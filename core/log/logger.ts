import type { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { LogOutput } from './output.ts';
import { prettyFormatter } from './pretty.ts';
import { Redactor } from './redactor.ts';
import { LogTail } from './tail.ts';

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  level: string;
  /** Where lines go (tests capture them); stdout by default. */
  stream?: Writable;
  /** `auto`: readable text on a terminal, JSON lines anywhere else (journald, files, pipes). */
  format?: LogFormat;
}

/** Keys whose values are always secrets, wherever they appear in a log object. */
const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["dpop"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.client_secret',
  '*.sitekey',
  '*.siteKey',
  '*.apiKey',
  '*.authKey',
  '*.key',
  '*.authorization',
  'password',
  'token',
  'secret',
  'key',
  'sitekey',
  'siteKey',
  'apiKey',
  'authorization',
];

export interface RootLogger {
  logger: Logger;
  redactor: Redactor;
  output: LogOutput;
  /** The last lines written, for the console's live tail. */
  tail: LogTail;
}

export function createLogger(opts: LoggerOptions): RootLogger {
  const redactor = new Redactor();
  // Never pino.destination(): its writes spin on EAGAIN and it flushes synchronously at exit, so a
  // reader that stops reading would stall the hub and its stop.
  const sink = opts.stream ?? process.stdout;
  const tty = (sink as { isTTY?: boolean }).isTTY === true;
  const pretty = opts.format === 'pretty' || (opts.format !== 'json' && tty);
  const tail = new LogTail();
  const output = new LogOutput({
    sink,
    tail,
    ...(pretty ? { format: prettyFormatter(tty) } : {}),
  });
  const logger = pino(
    {
      level: opts.level,
      base: { pid: process.pid },
      redact: { paths: redactPaths, censor: '[REDACTED]' },
      hooks: {
        // Last line of defence: scrub the serialised line, whatever shape the object had. A line that
        // will be dropped is not worth scrubbing.
        streamWrite: (line) => (output.accepts(line.length) ? redactor.scrubJsonLine(line) : line),
      },
    },
    output,
  );
  const log = logger.child({ name: 'log' });
  output.reportDrops = (dropped) => log.warn({ dropped }, 'log output could not keep up; lines were dropped');
  return { logger, redactor, output, tail };
}

/** A child logger named after its owner: `core`, `lighting`, `drv:hue`. */
export const childLogger = (root: Logger, name: string): Logger => root.child({ name });
