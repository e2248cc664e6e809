/** The in-memory log tail behind the console's live log: bounded, numbered, and only scrubbed lines. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/log/logger.ts';
import { LogTail } from '../../core/log/tail.ts';

describe('LogTail', () => {
  it('keeps the last `size` lines, numbered, and answers the lines after a number', () => {
    const tail = new LogTail(3);
    for (const n of [1, 2, 3, 4, 5]) tail.push(`line ${n}\n`);
    expect(tail.next).toBe(6);
    expect(tail.since(0)).toEqual([
      { seq: 3, line: 'line 3' },
      { seq: 4, line: 'line 4' },
      { seq: 5, line: 'line 5' },
    ]);
    expect(tail.since(4)).toEqual([{ seq: 5, line: 'line 5' }]);
    expect(tail.since(5)).toEqual([]);
    expect(tail.since(0, 1)).toEqual([{ seq: 5, line: 'line 5' }]);
  });

  it('holds what the logger wrote, after secrets were scrubbed', () => {
    const sink = new PassThrough();
    sink.resume();
    const { logger, redactor, tail } = createLogger({ level: 'info', stream: sink, format: 'json' });
    redactor.addValue('s3cret-site-key-value');
    logger.info({ password: 'hunter2' }, 'signed in with s3cret-site-key-value');
    const [entry] = tail.since(0);
    expect(entry?.line).toContain('signed in');
    expect(entry?.line).not.toContain('hunter2');
    expect(entry?.line).not.toContain('s3cret-site-key-value');
  });
});
