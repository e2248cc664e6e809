import { afterEach, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { fakeOpenAi } from './fakes/openai.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub } from './harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});
async function hub(opts: Parameters<typeof startTranslation>[0]): Promise<TranslationHub> {
  const h = await startTranslation(opts);
  cleanup.push(() => h.t.stop());
  return h;
}
async function fake<T extends FakeUpstream>(p: Promise<T>): Promise<T> {
  const f = await p;
  cleanup.push(() => f.close());
  return f;
}

describe('no engine configured (the embedded default)', () => {
  it('starts, says so in /ready, the notices and the log, and answers translations with a clear 400', async () => {
    const h = await hub({});
    const ready = await fetch(`${h.t.url}/ready`);
    const body = (await ready.json()) as {
      status: string;
      plugins: Array<{ name: string; health?: { status: string; detail?: string } }>;
      notices: Array<{ source: string; text: string }>;
    };
    expect(body.status).toBe('degraded');
    expect(body.plugins.find((p) => p.name === 'translation')?.health).toMatchObject({
      status: 'degraded',
      detail: expect.stringContaining('No translation engine is configured'),
    });
    expect(body.notices).toContainEqual(expect.objectContaining({ source: 'translation' }));
    const status = (await h.t.admin('GET', '/admin/hub')).body as { notices: Array<{ text: string }> };
    expect(status.notices).toContainEqual(
      expect.objectContaining({ text: expect.stringContaining('No translation engine is configured') }),
    );
    expect(h.t.logs.some((l) => String(l.msg).includes('No translation engine is configured'))).toBe(true);
    const { secret } = await h.createKey();
    const res = await h.call('POST', '/v2/translate', { key: secret, form: 'text=a&target_lang=de' });
    expect([res.status, res.body.message]).toEqual([
      400,
      expect.stringContaining('plugins.translation.engines'),
    ]);
    const langs = await h.call('GET', '/v2/languages?type=target', { key: secret });
    expect(langs.body).toEqual([]);
  });
});

describe('engine configuration mistakes', () => {
  it('disable the plugin with a clear reason instead of translating wrongly', async () => {
    for (const translation of [
      { engines: [{ type: 'libretranslate' }], routes: [{ target: 'DE', engines: ['deepl'] }] },
      { engines: [{ type: 'openai' }] },
      { engines: [{ type: 'deepl' }] },
    ]) {
      const h = await hub({ translation });
      const ready = (await (await fetch(`${h.t.url}/ready`)).json()) as {
        plugins: Array<{ name: string; status: string; error?: string }>;
      };
      expect(ready.plugins.find((p) => p.name === 'translation')).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/not configured|needs a "model"|needs an "apiKey"/),
      });
    }
  });
});

describe('failover and circuit breaker through the hub', () => {
  it('fails over on slowness and errors, opens the circuit, and reports a degraded plugin when all fail', async () => {
    const slow = await fake(fakeDeepl('k'));
    const lt = await fake(fakeLibre());
    const h = await hub({
      engines: [
        { type: 'deepl', url: slow.url, apiKey: 'k', timeoutMs: 200 },
        { type: 'libretranslate', url: lt.url },
      ],
      translation: { circuitBreaker: { failureThreshold: 2, cooldownMs: 600000 } },
    });
    const { secret } = await h.createKey();
    slow.trouble({ delayMs: 2000, path: '/v2/translate' });
    const texts = ['one', 'two', 'three'];
    for (const text of texts) {
      const res = await h.call('POST', '/v2/translate', {
        key: secret,
        json: { text: [text], target_lang: 'DE', source_lang: 'EN' },
      });
      expect(res.body.translations[0].text).toBe(text.toUpperCase());
    }
    expect(slow.calls('/v2/translate')).toHaveLength(2); // then the circuit opened
    lt.trouble({ status: 500, body: '{"error":"crashed"}', path: '/translate' });
    const down = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['four'], target_lang: 'DE' },
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(down.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    await h.call('POST', '/v2/translate', { key: secret, json: { text: ['five'], target_lang: 'DE' } });
    const ready = (await (await fetch(`${h.t.url}/ready`)).json()) as {
      plugins: Array<{ name: string; health?: { status: string; detail?: string } }>;
    };
    expect(ready.plugins.find((p) => p.name === 'translation')?.health).toMatchObject({
      status: 'degraded',
      detail: expect.stringContaining('every translation engine is failing'),
    });
    const usage = await h.call('GET', '/v2/usage', { key: secret });
    expect(usage.body.character_count).toBe('onetwothree'.length); // failed requests are not billed
    const scrape = await fetch(`${h.t.adminUrl}/metrics`, {
      headers: { authorization: `Basic ${Buffer.from(`metrics:${h.t.adminKey}`).toString('base64')}` },
    });
    const metrics = await scrape.text();
    expect(metrics).toMatch(
      /hearth_translation_engine_attempts_total\{[^}]*engine="deepl"[^}]*outcome="transient"[^}]*\} 2/,
    );
    expect(metrics).toMatch(
      /hearth_translation_engine_attempts_total\{[^}]*engine="libretranslate"[^}]*outcome="ok"[^}]*\} 3/,
    );
  });

  it('uses an OpenAI-compatible engine for custom instructions and rejects a wrong answer count', async () => {
    let wrong = false;
    const llm = await fake(
      fakeOpenAi({
        answer: (texts) => (wrong ? { translations: [] } : { translations: texts.map((t) => `[${t}]`) }),
      }),
    );
    const lt = await fake(fakeLibre());
    const h = await hub({
      engines: [
        { type: 'libretranslate', url: lt.url },
        { type: 'openai', url: `${llm.url}/v1`, model: 'gemma3:1b' },
      ],
    });
    const { secret } = await h.createKey();
    const json = {
      text: ['Dinner is ready'],
      target_lang: 'de',
      source_lang: 'en',
      custom_instructions: ['Be warm'],
    };
    const ok = await h.call('POST', '/v2/translate', { key: secret, json });
    expect(ok.body.translations[0].text).toBe('[Dinner is ready]');
    expect(lt.calls('/translate')).toHaveLength(0);
    const targets = (await h.call('GET', '/v2/languages?type=target', { key: secret })).body as Array<{
      language: string;
      supports_formality: boolean;
    }>;
    expect(targets.find((l) => l.language === 'DE')?.supports_formality).toBe(true); // via the LLM
    expect(targets.find((l) => l.language === 'EN-US')?.supports_formality).toBe(false); // DeepL's rule
    wrong = true;
    const bad = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { ...json, text: ['Lunch is ready'] },
    });
    expect(bad.status).toBe(503);
    expect(bad.body.message).toMatch(/returned 0 translations for 1 texts/);
  });
});
