import type { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { Redactor } from './redactor.ts';

export interface LoggerOptions {
  level: string;
  /** Where lines go (tests capture them); stdout by default. */
  stream?: Writable;
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
}

export function createLogger(opts: LoggerOptions): RootLogger {
  const redactor = new Redactor();
  const destination = opts.stream ?? pino.destination({ dest: 1, sync: false });
  const logger = pino(
    {
      level: opts.level,
      base: { pid: process.pid },
      redact: { paths: redactPaths, censor: '[REDACTED]' },
      hooks: {
        // Last line of defence: scrub the serialised line, whatever shape the object had.
        streamWrite: (line) => redactor.scrub(line),
      },
    },
    destination,
  );
  return { logger, redactor };
}

/** A child logger named after its owner: `core`, `lighting`, `drv:hue`. */
export const childLogger = (root: Logger, name: string): Logger => root.child({ name });
