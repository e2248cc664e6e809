import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../core/version.ts';
import { type ChainJob, EngineChain } from '../../plugins/translation/engines/chain.ts';
import { CircuitBreaker } from '../../plugins/translation/engines/circuit-breaker.ts';
import { deeplHost } from '../../plugins/translation/engines/deepl.ts';
import { createEngine } from '../../plugins/translation/engines/index.ts';
import { allPairs, LanguageCache } from '../../plugins/translation/engines/language-support.ts';
import { type EngineConfig, UpstreamError } from '../../plugins/translation/engines/types.ts';
import { prepareMarkup } from '../../plugins/translation/tags/markup.ts';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { fakeOpenAi } from './fakes/openai.ts';
import { bodyOf, FakeUpstream } from './fakes/server.ts';

const log = pino({ level: 'silent' });
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function upstream<T extends FakeUpstream>(p: Promise<T>): Promise<T> {
  const fake = await p;
  open.push(fake);
  return fake;
}

function engine(type: EngineConfig['type'], url: string, extra: Partial<EngineConfig> = {}) {
  const e = createEngine({
    id: type,
    type,
    url,
    apiKey: '',
    model: 'm',
    timeoutMs: 2000,
    languages: [],
    ...extra,
  });
  open.push(e);
  return e;
}

const job = (over: Partial<ChainJob> = {}): ChainJob => ({
  texts: ['Hello world'],
  source: null,
  target: 'DE',
  formality: null,
  context: null,
  customInstructions: [],
  modelType: null,
  splitSentences: null,
  preserveFormatting: false,
  tags: null,
  prepared: null,
  ...over,
});
const signal = new AbortController().signal;

async function failure(run: () => Promise<unknown>): Promise<UpstreamError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error('expected an upstream error');
}

describe('every engine', () => {
  it('regression: sends User-Agent Hearth/<version> on every upstream request (strict DeepL-compatible servers refuse none)', async () => {
    const deeplFake = await upstream(fakeDeepl('k'));
    const libreFake = await upstream(fakeLibre());
    const openAiFake = await upstream(fakeOpenAi());
    const d = engine('deepl', deeplFake.url, { apiKey: 'k' });
    const l = engine('libretranslate', libreFake.url);
    const o = engine('openai', `${openAiFake.url}/v1`);
    expect((await d.translate(job({ source: 'EN' }), signal)).translations[0]?.text).toBe('HELLO WORLD');
    expect((await d.languages()).targets.has('EN-GB')).toBe(true);
    await l.translate(job({ target: 'ES' }), signal); // auto-detection with /detect first
    await o.translate(job(), signal);
    const requests = [...deeplFake.requests, ...libreFake.requests, ...openAiFake.requests];
    expect(requests.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/v2/translate',
        '/v2/languages?type=target',
        '/detect',
        '/translate',
        '/v1/chat/completions',
      ]),
    );
    const agent = new RegExp(`^Hearth/${VERSION.replaceAll('.', '\\.')} \\(`);
    for (const r of requests) expect(r.headers['user-agent'], r.path).toMatch(agent);
  });
});

describe('DeepL engine', () => {
  it('forwards parameters as JSON with the upstream key and reads languages from the upstream', async () => {
    const fake = await upstream(fakeDeepl('k1:fx'));
    const deepl = engine('deepl', fake.url, { apiKey: 'k1:fx' });
    const result = await deepl.translate(
      job({ formality: 'more', modelType: 'quality_optimized', source: 'EN' }),
      signal,
    );
    expect(result.translations).toEqual([{ text: 'HELLO WORLD', detectedSource: 'EN' }]);
    expect(result.modelTypeUsed).toBe('quality_optimized');
    const sent = bodyOf(fake.calls('/v2/translate')[0]!);
    expect(sent).toMatchObject({
      text: ['Hello world'],
      target_lang: 'DE',
      formality: 'more',
      source_lang: 'EN',
    });
    const langs = await deepl.languages();
    expect(langs.serves('EN', 'EN-US')).toBe(true);
    expect(langs.serves('EN', 'IT')).toBe(false);
    expect(langs.formality.has('DE')).toBe(true);
  });

  it('picks the Free host for keys ending in :fx and the Pro host otherwise (docs/translation.md#transport-and-authentication)', () => {
    expect(deeplHost('0a1b2c3d-aaaa-bbbb-cccc-000000000000:fx')).toBe('https://api-free.deepl.com');
    expect(deeplHost('0a1b2c3d-aaaa-bbbb-cccc-000000000000')).toBe('https://api.deepl.com');
  });

  it('maps upstream statuses so clients retry only what is worth retrying', async () => {
    const fake = await upstream(fakeDeepl('k1'));
    const deepl = engine('deepl', fake.url, { apiKey: 'k1' });
    const expectations: Array<[number, string, UpstreamError['kind'], number | undefined]> = [
      [456, '{"message":"Quota for this billing period has been exceeded."}', 'quota', undefined],
      [429, '', 'transient', 429],
      [529, '', 'transient', 429],
      [500, '{"message":"boom"}', 'transient', undefined],
      [400, '{"message":"Value for \'target_lang\' not supported."}', 'unsupported', undefined],
      [400, '{"message":"Invalid glossary"}', 'rejected', undefined],
    ];
    for (const [status, body, kind, hint] of expectations) {
      fake.heal();
      fake.trouble({ status, body, path: '/v2/translate' });
      const err = await failure(() => deepl.translate(job(), signal));
      expect([status, err.kind, err.status]).toEqual([status, kind, hint]);
    }
    // An upstream quoting our key where the message is cut: no piece of the key survives.
    const long = engine('deepl', fake.url, { apiKey: 'secret-upstream-key' });
    fake.heal();
    fake.trouble({
      status: 400,
      body: JSON.stringify({ message: `${'x'.repeat(190)}secret-upstream-key refused` }),
      path: '/v2/translate',
    });
    const cut = await failure(() => long.translate(job(), signal));
    expect(cut.message).toContain(`${'x'.repeat(190)}***`);
    expect(cut.message).not.toContain('secret-');
    fake.heal();
    const wrongKey = engine('deepl', fake.url, { apiKey: 'nope' });
    const err = await failure(() => wrongKey.translate(job(), signal));
    expect(err.kind).toBe('quota');
    expect(err.message).not.toContain('nope');
  });

  it('times out a slow upstream and survives a dropped connection', async () => {
    const fake = await upstream(fakeDeepl('k'));
    const deepl = engine('deepl', fake.url, { apiKey: 'k', timeoutMs: 100 });
    fake.trouble({ delayMs: 1000, times: 1, path: '/v2/translate' });
    expect((await failure(() => deepl.translate(job(), signal))).message).toMatch(/no answer within 100 ms/);
    fake.trouble({ hangUp: true, times: 1, path: '/v2/translate' });
    expect((await failure(() => deepl.translate(job(), signal))).kind).toBe('transient');
    expect((await deepl.translate(job(), signal)).translations[0]?.text).toBe('HELLO WORLD');
  });
});

describe('LibreTranslate engine', () => {
  it('translates batches, maps codes and reports the detected language', async () => {
    const fake = await upstream(fakeLibre('lt-key'));
    const lt = engine('libretranslate', fake.url, { apiKey: 'lt-key' });
    const result = await lt.translate(
      job({ texts: ['Hello', 'Das ist gut'], target: 'FR', source: null }),
      signal,
    );
    expect(result.translations).toEqual([
      { text: 'HELLO', detectedSource: 'EN' },
      { text: 'DAS IST GUT', detectedSource: 'DE' },
    ]);
    const sent = bodyOf(fake.calls('/translate')[0]!);
    expect(sent).toMatchObject({ q: ['Hello', 'Das ist gut'], source: 'auto', target: 'fr', format: 'text' });
    const hant = await lt.translate(job({ texts: ['Hi'], source: 'EN', target: 'ZH-HANT' }), signal);
    expect(hant.translations[0]?.text).toBe('HI');
    expect(bodyOf(fake.calls('/translate')[1]!).target).toBe('zt');
    const langs = await lt.languages();
    expect(langs.serves('ES', 'DE')).toBe(false);
    expect(langs.serves('EN', 'DE')).toBe(true);
  });

  it('reports a detected variant code as the source language DeepL would name (zt → ZH)', async () => {
    const fake = await upstream(
      new FakeUpstream((req) =>
        req.path === '/languages'
          ? { status: 200, body: [{ code: 'zt', name: 'Chinese (traditional)', targets: ['en'] }] }
          : { status: 200, body: { translatedText: ['Hello'], detectedLanguage: [{ language: 'zt' }] } },
      ).start(),
    );
    const lt = engine('libretranslate', fake.url);
    const result = await lt.translate(job({ texts: ['你好'], target: 'EN-GB' }), signal);
    expect(result.translations).toEqual([{ text: 'Hello', detectedSource: 'ZH' }]);
  });

  it('reads an upstream language list with codes named like prototype properties as plain codes', async () => {
    const fake = await upstream(
      new FakeUpstream((req) =>
        req.path === '/languages'
          ? {
              status: 200,
              body: [
                { code: 'en', name: 'English', targets: ['de', 'constructor', '__proto__'] },
                { code: 'constructor', name: 'odd', targets: ['toString', 'en'] },
              ],
            }
          : { status: 200, body: { translatedText: ['Hallo'] } },
      ).start(),
    );
    const lt = engine('libretranslate', fake.url);
    const langs = await lt.languages();
    expect(langs.serves('EN', 'DE')).toBe(true);
    expect([...langs.sources]).toEqual(['EN']);
    const result = await lt.translate(job({ texts: ['Hello'], source: 'EN', target: 'DE' }), signal);
    expect(result.translations[0]?.text).toBe('Hallo');
  });

  it('uses /detect to refuse an auto-detected pair it lacks, and maps its {"error"} bodies', async () => {
    const fake = await upstream(fakeLibre());
    const lt = engine('libretranslate', fake.url);
    const err = await failure(() =>
      lt.translate(job({ texts: ['Die Katze und der Hund'], target: 'ES' }), signal),
    );
    expect(err.kind).toBe('unsupported');
    expect(fake.calls('/detect')).toHaveLength(1);
    expect(fake.calls('/translate')).toHaveLength(0);
    fake.trouble({ status: 429, body: '{"error":"Slowdown: 10 per 1 minute"}', path: '/translate' });
    const busy = await failure(() => lt.translate(job({ source: 'EN' }), signal));
    expect([busy.kind, busy.status, busy.message]).toEqual([
      'transient',
      429,
      expect.stringContaining('Slowdown'),
    ]);
    const keyed = engine('libretranslate', (await upstream(fakeLibre('right'))).url, { apiKey: 'wrong' });
    expect((await failure(() => keyed.translate(job({ source: 'EN' }), signal))).kind).toBe('quota');
  });
});

describe('OpenAI-compatible engine', () => {
  it('puts formality, context and custom instructions into the prompt and asks for JSON', async () => {
    const fake = await upstream(fakeOpenAi());
    const llm = engine('openai', `${fake.url}/v1`, { apiKey: 'sk-1', model: 'gemma3:1b' });
    const result = await llm.translate(
      job({
        texts: ['a', 'b'],
        formality: 'less',
        context: 'A laundry room',
        customInstructions: ['Be brief'],
      }),
      signal,
    );
    expect(result.translations.map((t) => t.text)).toEqual(['A', 'B']);
    expect(result.translations[0]?.detectedSource).toBe('EN');
    const sent = bodyOf(fake.calls('/v1/chat/completions')[0]!) as {
      model: string;
      response_format: unknown;
      messages: Array<{ content: string }>;
    };
    expect(sent.model).toBe('gemma3:1b');
    expect(sent.response_format).toEqual({ type: 'json_object' });
    const system = sent.messages[0]?.content ?? '';
    expect(system).toContain('informal register');
    expect(system).toContain('A laundry room');
    expect(system).toContain('- Be brief');
    expect(system).toContain('German (DE)');
    expect(fake.calls('/v1/chat/completions')[0]?.headers.authorization).toBe('Bearer sk-1');
  });

  it('refuses answers whose count or shape is wrong', async () => {
    const wrongCount = await upstream(fakeOpenAi({ answer: () => ({ translations: ['only one'] }) }));
    const llm = engine('openai', `${wrongCount.url}/v1`);
    const err = await failure(() => llm.translate(job({ texts: ['a', 'b'] }), signal));
    expect([err.kind, err.message]).toEqual([
      'invalid_response',
      'the model returned 1 translations for 2 texts',
    ]);
    const prose = await upstream(fakeOpenAi({ answer: () => 'Sure! Here is your translation: Hallo' }));
    const chatty = engine('openai', `${prose.url}/v1`);
    expect((await failure(() => chatty.translate(job(), signal))).kind).toBe('invalid_response');
  });
});

describe('engine chain', () => {
  it('fails over to the next engine and opens the circuit of a failing one', async () => {
    const deepl = await upstream(fakeDeepl('k'));
    const lt = await upstream(fakeLibre());
    let now = 0;
    const chain = new EngineChain(
      [engine('deepl', deepl.url, { apiKey: 'k' }), engine('libretranslate', lt.url)],
      [],
      { failureThreshold: 2, cooldownMs: 1000, now: () => now },
      log,
    );
    deepl.trouble({ status: 503, path: '/v2/translate' });
    for (let i = 0; i < 3; i++) {
      const answer = await chain.translate(job({ source: 'EN' }), signal);
      expect(answer.engine.id).toBe('libretranslate');
    }
    expect(deepl.calls('/v2/translate')).toHaveLength(2); // the third request skipped the open circuit
    expect(chain.breakerState('deepl')).toBe('open');
    deepl.heal();
    now = 1000; // cooldown over: one trial call closes the circuit again
    expect((await chain.translate(job({ source: 'EN' }), signal)).engine.id).toBe('deepl');
    expect(chain.breakerState('deepl')).toBe('closed');
  });

  it('skips engines that cannot honour formality, custom instructions or a quality model, and says which parameter', async () => {
    const lt = await upstream(fakeLibre());
    const llm = await upstream(fakeOpenAi());
    const chain = new EngineChain(
      [engine('libretranslate', lt.url), engine('openai', `${llm.url}/v1`)],
      [],
      { failureThreshold: 5, cooldownMs: 1000 },
      log,
    );
    expect((await chain.translate(job({ formality: 'more' }), signal)).engine.id).toBe('openai');
    expect((await chain.translate(job({ formality: 'prefer_more', source: 'EN' }), signal)).engine.id).toBe(
      'libretranslate',
    );
    const onlyLt = new EngineChain(
      [engine('libretranslate', lt.url)],
      [],
      { failureThreshold: 5, cooldownMs: 1 },
      log,
    );
    await expect(onlyLt.translate(job({ customInstructions: ['x'] }), signal)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("'custom_instructions'"),
    });
    await expect(
      onlyLt.translate(job({ modelType: 'quality_optimized', source: 'EN' }), signal),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("'model_type=quality_optimized'"),
    });
    // A preference is not a requirement: LibreTranslate's one model serves it.
    const preferred = await onlyLt.translate(
      job({ modelType: 'prefer_quality_optimized', source: 'EN' }),
      signal,
    );
    expect(preferred.engine.id).toBe('libretranslate');
    await expect(onlyLt.translate(job({ source: 'ES', target: 'JA' }), signal)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("into 'JA'"),
    });
  });

  it('follows per-pair routes and maps the final error: 456 for quota, 429 when all are busy', async () => {
    const deepl = await upstream(fakeDeepl('k'));
    const lt = await upstream(fakeLibre());
    const chain = new EngineChain(
      [engine('deepl', deepl.url, { apiKey: 'k' }), engine('libretranslate', lt.url)],
      [{ source: '*', target: 'FR', engines: ['libretranslate', 'deepl'] }],
      { failureThreshold: 50, cooldownMs: 1000 },
      log,
    );
    expect((await chain.translate(job({ target: 'FR', source: 'EN' }), signal)).engine.id).toBe(
      'libretranslate',
    );
    expect((await chain.translate(job({ target: 'DE', source: 'EN' }), signal)).engine.id).toBe('deepl');
    deepl.trouble({ status: 456, body: '{"message":"Quota exceeded"}', path: '/v2/translate' });
    lt.trouble({ status: 403, body: '{"error":"Invalid API key"}', path: '/translate' });
    await expect(chain.translate(job({ source: 'EN' }), signal)).rejects.toMatchObject({ status: 456 });
    deepl.heal();
    lt.heal();
    deepl.trouble({ status: 429, path: '/v2/translate' });
    lt.trouble({ status: 429, body: '{"error":"Slowdown"}', path: '/translate' });
    await expect(chain.translate(job({ source: 'EN' }), signal)).rejects.toMatchObject({ status: 429 });
    lt.heal();
    lt.trouble({ status: 500, body: '{"error":"crash"}', path: '/translate' });
    await expect(chain.translate(job({ source: 'EN' }), signal)).rejects.toMatchObject({ status: 503 });
  });

  it('does tag handling for engines without it and passes markup through to DeepL', async () => {
    const deepl = await upstream(fakeDeepl('k'));
    const lt = await upstream(fakeLibre());
    const tags = {
      mode: 'xml' as const,
      version: 'v2' as const,
      outlineDetection: true,
      splittingTags: [],
      nonSplittingTags: [],
      ignoreTags: ['x'],
    };
    const markup = '<p>Hello <x>Hearth</x> world</p>';
    const texts = [markup];
    const prepared = texts.map((t) => prepareMarkup(t, tags));
    const viaLt = new EngineChain(
      [engine('libretranslate', lt.url)],
      [],
      { failureThreshold: 5, cooldownMs: 1 },
      log,
    );
    const ltAnswer = await viaLt.translate(job({ texts, tags, prepared, source: 'EN' }), signal);
    expect(ltAnswer.result.translations[0]?.text).toBe('<p>HELLO <x>Hearth</x> WORLD</p>');
    expect(bodyOf(lt.calls('/translate')[0]!).q).toEqual(['Hello', 'world']);
    const llm = await upstream(fakeOpenAi());
    const viaLlm = new EngineChain(
      [engine('openai', `${llm.url}/v1`)],
      [],
      { failureThreshold: 5, cooldownMs: 1 },
      log,
    );
    const llmAnswer = await viaLlm.translate(job({ texts, tags, prepared, source: 'EN' }), signal);
    expect(llmAnswer.result.translations[0]?.text).toBe('<p>HELLO <x>Hearth</x> WORLD</p>');
    const prompt = (bodyOf(llm.calls('/v1/chat/completions')[0]!) as { messages: Array<{ content: string }> })
      .messages[1]?.content;
    expect(JSON.parse(prompt ?? '{}')).toEqual({ texts: ['Hello', 'world'] }); // runs only, no markup
    const viaDeepl = new EngineChain(
      [engine('deepl', deepl.url, { apiKey: 'k' })],
      [],
      { failureThreshold: 5, cooldownMs: 1 },
      log,
    );
    await viaDeepl.translate(job({ texts, tags, prepared, source: 'EN' }), signal);
    expect(bodyOf(deepl.calls('/v2/translate')[0]!)).toMatchObject({
      text: [markup],
      tag_handling: 'xml',
      ignore_tags: ['x'],
    });
  });
});

describe('language lists', () => {
  it('never hold a translation up while an upstream is slow to list its languages', async () => {
    const deepl = await upstream(fakeDeepl('k'));
    deepl.trouble({ delayMs: 20_000, path: '/v2/languages' });
    const chain = new EngineChain(
      [engine('deepl', deepl.url, { apiKey: 'k', timeoutMs: 25_000 })],
      [],
      { failureThreshold: 5, cooldownMs: 1 },
      log,
    );
    const answer = await chain.translate(job({ source: 'EN' }), signal);
    expect(answer.result.translations[0]?.text).toBe('HELLO WORLD');
    expect(deepl.calls('/v2/languages').length).toBeGreaterThan(0); // asked, still unanswered
  });
});

describe('language cache', () => {
  it('gh-review: after a failed load, routing gets the one fallback list without rebuilding it or waiting', async () => {
    let loads = 0;
    let builds = 0;
    const cache = new LanguageCache(
      async () => {
        loads++;
        throw new Error('upstream down');
      },
      () => {
        builds++;
        return allPairs(['EN'], ['DE'], []);
      },
    );
    const first = await cache.within(1000);
    for (let i = 0; i < 100; i++) expect(await cache.within(1000)).toBe(first);
    expect(await cache.get()).toBe(first);
    expect([loads, builds]).toEqual([1, 1]); // retried only after retryMs, built once
  });
});

describe('circuit breaker', () => {
  it('lets exactly one trial through when half-open and re-opens on its failure', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 10, now: () => now });
    breaker.failure();
    expect(breaker.tryAcquire()).toBe(false);
    now = 10;
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.failure();
    expect(breaker.state).toBe('open');
    now = 20;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.success();
    expect(breaker.state).toBe('closed');
  });
});
