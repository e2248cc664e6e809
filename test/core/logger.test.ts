import { spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../core/log/logger.ts';
import { LogOutput } from '../../core/log/output.ts';
import { RECENT_VALUES_MAX, Redactor } from '../../core/log/redactor.ts';
import { definePlugin } from '../../core/plugin/types.ts';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';
import { startTestHub } from '../helpers/hub.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const SITE_KEY = 'Zq9sitekeyVERYsecret_0123456789';
const TOKEN = 'tok3n.bearer.SECRET-abcdef123456';
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzd2l0Y2gifQ.c2lnbmF0dXJlLXNlY3JldA';
const UPSTREAM = 'upstream-api-key-4f1e2d3c';
/** An API key in a query string that nothing registered: only the query pattern can scrub it. */
const QUERY_KEY = 'legacy-query-key-7e6d5c4b';

const leaky = definePlugin({
  name: 'leaky',
  version: '1.0.0',
  description: 'logs things it should not',
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    ctx.redact.value(UPSTREAM);
    const r = ctx.http.router('main');
    r.get('/api/site/:key/light', (k) => {
      ctx.log.info({ key: k.params.key, password: 'hunter2-password', token: TOKEN }, `call for ${k.url}`);
      ctx.log.warn(`upstream answered 403 for key ${UPSTREAM} and header Bearer ${TOKEN}`);
      k.body = [];
    });
    r.get('/fail', () => {
      throw new Error(`crashed while using ${JWT}`);
    });
    return { stop() {} };
  },
});

describe('log redaction', () => {
  it('never writes site keys, bearer tokens, JWTs, passwords or registered secrets', async () => {
    const t = await startTestHub({ extraPlugins: [leaky] });
    await fetch(`${t.url}/api/site/${SITE_KEY}/light?access_token=${TOKEN}`, {
      headers: { authorization: `Bearer ${TOKEN}`, cookie: `sid=${TOKEN}` },
    });
    await fetch(`${t.url}/site/${SITE_KEY}`);
    await fetch(`${t.url}/v2/usage?auth_key=${QUERY_KEY}&x=1`);
    await fetch(`${t.url}/fail`, { headers: { authorization: `Bearer ${JWT}` } });
    await fetch(`${t.adminUrl}/admin/nothing`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await t.stop();
    const all = t.logs.map((l) => JSON.stringify(l)).join('\n');
    // The requests were logged at all (otherwise this test could not fail).
    expect(all).toContain('call for /api/site/[REDACTED]/light');
    expect(all).toContain('/site/[REDACTED]');
    expect(all).toContain('crashed while using [REDACTED]');
    expect(all).toContain('/v2/usage?auth_key=[REDACTED]&x=1');
    for (const secret of [SITE_KEY, TOKEN, JWT, UPSTREAM, QUERY_KEY, 'hunter2-password', t.adminKey]) {
      expect(all).not.toContain(secret);
    }
  });
});

/** Sends `path` exactly as written (fetch would normalise it first). */
function rawGet(base: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(base), { path }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

/** A small seeded PRNG: the property tests below are random but repeatable. */
function prng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  return { next, pick };
}

const pctEncode = (c: string, lower: boolean) => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};

/** Fully decodes a text the way a reader of the log could (repeatedly, tolerating bad escapes). */
function decodeAll(text: string): string {
  let out = text;
  for (let i = 0; i < 4; i++) {
    const next = out.replace(/(%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
    if (next === out) break;
    out = next;
  }
  return out;
}

describe('redaction keeps log lines valid JSON', () => {
  it('regression: lighting site-key redaction corrupts JSON lines for /site/<key> URLs at debug', async () => {
    const t = await startTestHub({ plugins: ['lighting'] });
    try {
      for (const p of [
        `/site/${SITE_KEY}`,
        `/site/${SITE_KEY}/`,
        `/api/site/${SITE_KEY}/lights`,
        `/site/${SITE_KEY}?x=1`,
        `/site/${SITE_KEY}"quoted`,
      ])
        await rawGet(t.url, p);
    } finally {
      await t.stop();
    }
    const requests = t.logs.filter((l) => l.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(5);
    // A line the redactor broke is kept as { raw } by the test hub's parser.
    expect(t.logs.filter((l) => 'raw' in l)).toEqual([]);
    expect(requests.map((l) => l.url)).toContain('/site/[REDACTED]');
    expect(JSON.stringify(t.logs)).not.toContain(SITE_KEY);
  });

  it('regression: short-lived values (sealed upstream tokens) stay bounded, long-lived ones are never dropped', () => {
    const r = new Redactor();
    r.addValue('hue-application-key-0001');
    for (let i = 0; i < RECENT_VALUES_MAX + 500; i++) r.addValue(`upstream-token-${i}`, 'recent');
    expect(r.valueCount()).toBe(RECENT_VALUES_MAX + 1);
    const line = (msg: string) => JSON.parse(r.scrubJsonLine(`${JSON.stringify({ msg })}\n`)).msg;
    expect(line('key hue-application-key-0001')).toBe('key [REDACTED]');
    expect(line(`newest upstream-token-${RECENT_VALUES_MAX + 499}`)).toBe('newest [REDACTED]');
    // The oldest short-lived ones made room; the one used again most recently stayed.
    r.addValue('upstream-token-600', 'recent');
    r.addValue('upstream-token-extra', 'recent');
    expect(line('upstream-token-600')).toBe('[REDACTED]');
    expect(line('upstream-token-3 ')).toBe('upstream-token-3 ');
  });

  it('a plugin path pattern that would run past the string never breaks the line', () => {
    const r = new Redactor();
    r.addPath(/\/site\/([^/?#]+)/);
    r.addPath(/key=(.*)/);
    const line = `${JSON.stringify({ url: `/site/${SITE_KEY}`, msg: 'GET /site/abc "x" key=123456 rest', n: 1 })}\n`;
    const out = r.scrubJsonLine(line);
    expect(out.endsWith('}\n')).toBe(true);
    const parsed = JSON.parse(out);
    expect(parsed).toEqual({
      url: '/site/[REDACTED]',
      msg: 'GET /site/[REDACTED] "x" key=[REDACTED] rest',
      n: 1,
    });
  });
});

describe('redaction of site keys and secret query values in any URL spelling', () => {
  it('regression: a site key in /api/site%2F<key> and a ?secret= value reach the log at debug', async () => {
    const t = await startTestHub({ plugins: ['lighting'] });
    const secret = 'query-secret-9f8e7d6c5b4a';
    try {
      for (const p of [
        `/api/site%2F${SITE_KEY}/lights`,
        `/api/site%2f${SITE_KEY}/lights`,
        `/api/site%252F${SITE_KEY}`,
        `//api//site//${SITE_KEY}`,
        `/API/SITE/${SITE_KEY}`,
        `/api/%73ite/${SITE_KEY}`,
        `/api/site/./${SITE_KEY}`,
        `/health?secret=${secret}`,
        `/health?x=1&Client_Secret=${secret}`,
        `/health?password=${encodeURIComponent(`${secret}&x=y`)}`,
      ])
        await rawGet(t.url, p);
    } finally {
      await t.stop();
    }
    const all = JSON.stringify(t.logs);
    expect(t.logs.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(10);
    expect(all).toContain('secret=[REDACTED]');
    expect(decodeAll(all)).not.toContain(SITE_KEY);
    expect(decodeAll(all)).not.toContain(secret);
  });

  it('property: no generated URL spelling lets a site key or a secret parameter through', () => {
    const r = new Redactor();
    const rnd = prng(0x5eed);
    const keyChars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const separators = ['/', '//', '%2F', '%2f', '%252F', '%25252f', '\\', '/./', '%5C'];
    const prefixes = ['', '/api', '/mqtt', 'http://hub.local:8080', 'http://hub.local/api'];
    const suffixes = [
      '',
      '/',
      '/lights',
      '/lights/3?x=1',
      '?x=1',
      '#top',
      ' then more text',
      '" quoted',
      '\ttab',
    ];
    const secretNames = [
      'secret',
      'token',
      'access_token',
      'refresh_token',
      'key',
      'api_key',
      'auth_key',
      'password',
      'client_secret',
      'code',
      'code_verifier',
      'id_token',
      'x-api-key',
      'SessionToken',
    ];
    const spell = (word: string) =>
      [...word]
        .map((c) => {
          const roll = rnd.next();
          if (roll < 0.2) return pctEncode(c, rnd.next() < 0.5);
          if (roll < 0.4) return c.toUpperCase();
          return c;
        })
        .join('');
    for (let i = 0; i < 3000; i++) {
      const key = Array.from({ length: 16 + Math.floor(rnd.next() * 30) }, () =>
        rnd.pick([...keyChars]),
      ).join('');
      const keySpelled = rnd.next() < 0.2 ? spell(key) : key;
      const url = `${rnd.pick(prefixes)}/${spell('site')}${rnd.pick(separators)}${keySpelled}${rnd.pick(suffixes)}`;
      const name = rnd.next() < 0.5 ? rnd.pick(secretNames) : spell(rnd.pick(secretNames));
      const value = `v${key.slice(0, 12)}${rnd.pick(['', '%26more', '%3D%3D', '+plus', '%2Fslash'])}`;
      const query = `/x${rnd.pick(['?', '?a=1&', '?a=1;', '%3F'])}${name}${rnd.pick(['=', '%3D'])}${value}${rnd.pick(['', '&b=2', '#f', ' text'])}`;
      const line = `${JSON.stringify({ url, msg: `GET ${url} and ${query}`, query })}\n`;
      const out = r.scrubJsonLine(line);
      const parsed = JSON.parse(out) as Record<string, string>;
      expect(out.endsWith('}\n'), line).toBe(true);
      for (const field of Object.values(parsed)) {
        const seen = decodeAll(field);
        expect(seen, line).not.toContain(key);
        expect(seen, line).not.toContain(decodeAll(value));
      }
    }
  });

  it('ordinary URLs and text stay readable', () => {
    const r = new Redactor();
    for (const text of [
      '/admin/sites/kitchen',
      '/website/about',
      '/api/sites?page=2&sort=name',
      'GET /health?verbose=1 200',
      'hub ready in 120 ms',
    ])
      expect(r.scrub(text)).toBe(text);
  });
});

/** A sink whose reader has stopped: writes stay pending until `release()`. */
class StalledSink extends Writable {
  private held: Array<() => void> = [];
  stalled = true;
  received: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error) => void): void {
    this.received.push(chunk.toString());
    if (this.stalled) this.held.push(() => done());
    else done();
  }
  release(): void {
    this.stalled = false;
    for (const done of this.held.splice(0)) done();
  }
}

describe('bounded log output', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops and counts lines past the budget instead of buffering them, then reports the count once', async () => {
    const sink = new StalledSink();
    const { logger, output } = createLogger({ level: 'debug', stream: sink });
    const pad = 'y'.repeat(200);
    for (let i = 0; i < 20000; i++) logger.debug({ i, pad }, 'busy');
    // ~5 MB logged into a stalled reader: at most the 1 MiB budget waits in memory.
    expect(output.pendingBytes).toBeLessThanOrEqual(1024 * 1024 + 400);
    expect(output.dropped).toBeGreaterThan(10000);

    const dropped = output.dropped;
    sink.release();
    await new Promise((r) => setImmediate(r));
    const reports = sink.received.filter((l) => l.includes('lines were dropped'));
    expect(reports).toHaveLength(1);
    expect(JSON.parse(reports[0] as string)).toMatchObject({ level: 40, dropped, name: 'log' });
    // Output flows again.
    logger.info('after');
    expect(sink.received.at(-1)).toContain('"msg":"after"');
  });

  it('stops writing, without throwing, once the reader is gone (EPIPE)', () => {
    const sink = new PassThrough();
    const { logger, output } = createLogger({ level: 'info', stream: sink });
    sink.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(() => logger.info('into the void')).not.toThrow();
    expect(output.dropped).toBe(1);
  });

  it('flush() gives up after its timeout when the reader never reads', () => {
    vi.useFakeTimers();
    const sink = new StalledSink();
    const output = new LogOutput({ sink, flushTimeoutMs: 250 });
    output.write('{"msg":"pending"}\n');
    const done = vi.fn();
    output.flush(done);
    vi.advanceTimersByTime(249);
    expect(done).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(done).toHaveBeenCalledOnce();
  });

  it('flush() returns as soon as the reader has taken everything', async () => {
    vi.useFakeTimers();
    const sink = new StalledSink();
    const output = new LogOutput({ sink, flushTimeoutMs: 250 });
    output.write(`${'z'.repeat(20000)}\n`);
    const done = vi.fn();
    output.flush(done);
    sink.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toHaveBeenCalledOnce();
  });
});

describe('log format', () => {
  const capture = (format: 'auto' | 'json' | 'pretty', tty: boolean) => {
    const sink = new PassThrough();
    Object.assign(sink, { isTTY: tty });
    let text = '';
    sink.on('data', (c: Buffer) => {
      text += c.toString();
    });
    const { logger } = createLogger({ level: 'info', stream: sink, format });
    return { logger: logger.child({ name: 'lighting' }), text: () => text };
  };

  it('is readable text on a terminal (pino-pretty), control characters from outside shown escaped', async () => {
    const c = capture('auto', true);
    c.logger.info({ light: 3, url: `/site/${SITE_KEY}` }, 'light switched \u001b[2J');
    c.logger.error({ err: new Error('boom') }, 'failed');
    await new Promise((r) => setImmediate(r));
    const plain = c.text().replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
    const [first, second] = plain.split('\n');
    expect(first).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: lighting: light switched \\u001b\[2J /);
    expect(first).toContain('"light":3');
    expect(first).toContain('"url":"/site/[REDACTED]"');
    expect(second).toMatch(/ERROR: lighting: failed/);
    expect(plain).toContain('Error: boom');
    expect(c.text()).not.toContain(SITE_KEY);
    expect(c.text()).not.toContain('\u001b[2J');
  });

  it('loads pino-pretty only for a terminal: a hub writing JSON never pays its start-up cost', async () => {
    const run = spawnSync(process.execPath, [await built('test/core/fixtures/pretty-loaded.ts')], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
    });
    expect(JSON.parse(run.stdout)).toEqual({ pipe: false, terminal: true });
  });

  it('is one JSON object per line for journald, files and pipes', async () => {
    for (const c of [capture('auto', false), capture('json', true)]) {
      c.logger.info({ light: 3 }, 'light switched');
      await new Promise((r) => setImmediate(r));
      expect(JSON.parse(c.text())).toMatchObject({
        level: 30,
        name: 'lighting',
        light: 3,
        msg: 'light switched',
      });
    }
  });
});

describe('notices', () => {
  it('regression: each notice is logged once, at start-up and after the plugins restart', async () => {
    const t = await startTestHub({ plugins: ['lighting', 'translation', 'auth'] });
    try {
      // A data restore stops and starts every plugin; their notices are the same as before.
      await t.hub.reload(async () => {});
    } finally {
      await t.stop();
    }
    const noEngine = t.logs.filter((l) => String(l.msg).startsWith('No translation engine'));
    expect(noEngine).toHaveLength(1);
    const notices = t.logs.filter((l) => l.notice !== undefined).map((l) => `${l.source}/${l.notice}`);
    expect(notices.length).toBeGreaterThanOrEqual(3);
    expect(new Set(notices).size).toBe(notices.length);
  });
});
