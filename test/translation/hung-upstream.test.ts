/**
 * A hung upstream must not take a client's retries down with it: each attempt at an engine is bounded
 * well under the clients' own timeout, the chain fails over, and upstream work that no request waits for
 * any more is cancelled, so a retry starts fresh work instead of joining the hung call. Real deepl-node
 * clients and real HTTP against fake upstreams on loopback.
 */
import * as deepl from 'deepl-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub } from './harness.ts';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function hub(engines: unknown[]): Promise<TranslationHub> {
  const h = await startTranslation({ engines });
  cleanup.push(() => h.t.stop());
  return h;
}

async function fake(p: Promise<FakeUpstream>): Promise<FakeUpstream> {
  const f = await p;
  cleanup.push(() => f.close());
  return f;
}

describe('deepl-node against a hung upstream', () => {
  it('regression: a retry after the client timed out starts fresh work instead of joining the hung call', async () => {
    const upstream = await fake(fakeDeepl('k'));
    // A bound far longer than the client's timeout: only the cancellation can let the retry through.
    const h = await hub([{ type: 'deepl', url: upstream.url, apiKey: 'k', timeoutMs: 60_000 }]);
    const { secret } = await h.createKey('retrying client');
    upstream.trouble({ delayMs: 60_000, times: 1, path: '/v2/translate' });
    const translator = new deepl.Translator(secret, { serverUrl: h.t.url, maxRetries: 4, minTimeout: 1000 });
    const result = await translator.translateText('Hello', 'en', 'de');
    expect(result.text).toBe('HELLO');
    const calls = upstream.calls('/v2/translate');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    // The hung call was cancelled (its connection closed by Hearth), not left running for nobody.
    await vi.waitFor(() => expect(calls[0]?.aborted).toBe(true), { timeout: 5000 });
  });

  it('regression: fails over from a hung engine within one client attempt at the default bound', async () => {
    const hung = await fake(fakeDeepl('k'));
    const libre = await fake(fakeLibre());
    const h = await hub([
      { type: 'deepl', url: hung.url, apiKey: 'k' },
      { type: 'libretranslate', url: libre.url },
    ]);
    const { secret } = await h.createKey('one attempt');
    hung.trouble({ delayMs: 60_000, path: '/v2/translate' });
    // deepl-node's default attempt timeout (5 s) and no retry: the answer must come within it.
    const translator = new deepl.Translator(secret, { serverUrl: h.t.url, maxRetries: 0 });
    const result = await translator.translateText('Hello', 'en', 'de');
    expect(result.text).toBe('HELLO');
    expect(libre.calls('/translate')).toHaveLength(1);
    await vi.waitFor(() => expect(hung.calls('/v2/translate')[0]?.aborted).toBe(true));
  }, 15_000);
});

describe('joined requests over HTTP', () => {
  it('cancel the upstream call only when every request waiting for it has gone', async () => {
    const upstream = await fake(fakeDeepl('k'));
    const h = await hub([{ type: 'deepl', url: upstream.url, apiKey: 'k', timeoutMs: 60_000 }]);
    const { secret } = await h.createKey('joined');
    upstream.trouble({ delayMs: 60_000, times: 1, path: '/v2/translate' });
    const send = (texts: string[], id: string, signal: AbortSignal) =>
      fetch(`${h.t.url}/v2/translate`, {
        method: 'POST',
        headers: {
          authorization: `DeepL-Auth-Key ${secret}`,
          'content-type': 'application/json',
          'x-request-id': id,
        },
        body: JSON.stringify({ text: texts, target_lang: 'DE', source_lang: 'EN' }),
        signal,
      }).catch((err: unknown) => err);

    const a = new AbortController();
    const first = send(['Shared text'], 'client-a', a.signal);
    await vi.waitFor(() => expect(upstream.calls('/v2/translate')).toHaveLength(1));
    // B waits for the same text (joining A's call) and sends a text of its own (a second upstream call,
    // which tells us B has joined).
    const b = new AbortController();
    const second = send(['Shared text', 'Only B'], 'client-b', b.signal);
    await vi.waitFor(() => expect(upstream.calls('/v2/translate')).toHaveLength(2));
    expect(JSON.parse(upstream.calls('/v2/translate')[1]?.body ?? '{}').text).toEqual(['Only B']);

    a.abort();
    await first;
    await vi.waitFor(() => expect(h.t.logs.find((l) => l.reqId === 'client-a')?.status).toBe(499));
    expect(upstream.calls('/v2/translate')[0]?.aborted).toBeUndefined(); // B still waits for it

    b.abort();
    await second;
    await vi.waitFor(() => expect(upstream.calls('/v2/translate')[0]?.aborted).toBe(true));

    // A new request for the same text starts a fresh call and gets its answer.
    const third = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['Shared text'], target_lang: 'DE', source_lang: 'EN' },
    });
    expect([third.status, third.body.translations?.[0]?.text]).toEqual([200, 'SHARED TEXT']);
    expect(upstream.calls('/v2/translate')).toHaveLength(3);
  });
});
