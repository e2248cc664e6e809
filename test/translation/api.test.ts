import * as deepl from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { bodyOf, type FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub } from './harness.ts';

let h: TranslationHub;
let upstream: FakeUpstream;
let lt: FakeUpstream;
let secret: string;
const UPSTREAM_KEY = 'upstream-secret-key:fx';

beforeAll(async () => {
  upstream = await fakeDeepl(UPSTREAM_KEY);
  lt = await fakeLibre();
  h = await startTranslation({
    engines: [
      { type: 'deepl', url: upstream.url, apiKey: UPSTREAM_KEY },
      { type: 'libretranslate', url: lt.url },
    ],
    translation: { routes: [{ target: 'FR', engines: ['libretranslate', 'deepl'] }] },
  });
  secret = (await h.createKey('tests')).secret;
});
afterAll(async () => {
  await h.t.stop();
  await upstream.close();
  await lt.close();
});

describe('deepl-node against Hearth', () => {
  it('translates one text and many, in order, with billed characters', async () => {
    const translator = h.translator(secret);
    const one = await translator.translateText('Hello world', null, 'de');
    expect(one).toMatchObject({ text: 'HELLO WORLD', detectedSourceLang: 'en', billedCharacters: 11 });
    const texts = Array.from({ length: 50 }, (_, i) => `text number ${i}`);
    const many = await translator.translateText(texts, 'en', 'en-GB');
    expect(many.map((r) => r.text)).toEqual(texts.map((t) => t.toUpperCase()));
    // The form carried 50 repeated `text` fields and deepl-node's '1' boolean.
    const sent = upstream.calls('/v2/translate').at(-1)!;
    expect((bodyOf(sent).text as string[]).length).toBe(50);
  });

  it('passes formality, model type and tag options to DeepL and reports model_type_used', async () => {
    const translator = h.translator(secret);
    const result = await translator.translateText('<p>Hi <x>Anna</x></p>', 'en', 'de', {
      formality: 'prefer_more',
      modelType: 'quality_optimized',
      tagHandling: 'xml',
      ignoreTags: ['x'],
      context: 'a greeting',
    });
    expect(result.modelTypeUsed).toBe('quality_optimized');
    expect(bodyOf(upstream.calls('/v2/translate').at(-1)!)).toMatchObject({
      formality: 'prefer_more',
      model_type: 'quality_optimized',
      tag_handling: 'xml',
      ignore_tags: ['x'],
      context: 'a greeting',
    });
  });

  it('routes French to LibreTranslate and does the tag handling there itself', async () => {
    const translator = h.translator(secret);
    const markup =
      '<doc><t>Good morning</t><p>It is <b>very</b> late</p><code translate="no">x = 1</code></doc>';
    const result = await translator.translateText(markup, 'en', 'fr', {
      tagHandling: 'xml',
      nonSplittingTags: ['b'],
    });
    expect(result.text).toBe(
      '<doc><t>GOOD MORNING</t><p>IT IS <b>VERY</b> LATE</p><code translate="no">x = 1</code></doc>',
    );
    expect(bodyOf(lt.calls('/translate').at(-1)!).q).toEqual(['Good morning', 'It is very late']);
  });

  it('gh-review: takes the style_id and tag_handling_version deepl-node puts in its form', async () => {
    const translator = h.translator(secret);
    const lenient = await translator.translateText('<p>Hi <b>there</p>', 'en', 'de', {
      tagHandling: 'xml',
      tagHandlingVersion: 'v1',
    });
    expect(lenient.text).toBe('<p>HI <b>THERE</p>');
    expect(bodyOf(upstream.calls('/v2/translate').at(-1)!)).toMatchObject({ tag_handling_version: 'v1' });
    // No style rule lists before part 2: the named list is not found (404), not a refused form field.
    await expect(translator.translateText('Hi', 'en', 'de', { styleRule: 'style-1' })).rejects.toThrow(
      /Style rule list 'style-1' not found/,
    );
  });

  it('reads usage and the languages the engines serve', async () => {
    const { secret: fresh } = await h.createKey('usage');
    const translator = h.translator(fresh);
    await translator.translateText(['abc', 'de'], 'en', 'de');
    const usage = await translator.getUsage();
    expect(usage.character?.count).toBe(5);
    expect(usage.character?.limit).toBe(1_000_000_000_000);
    const targets = await translator.getTargetLanguages();
    const de = targets.find((l) => l.code === 'de');
    expect(de).toMatchObject({ name: 'German', supportsFormality: true });
    expect(targets.find((l) => l.code === 'en-US')).toBeDefined();
    expect(targets.find((l) => l.code === 'zh-HANT')).toBeDefined(); // via LibreTranslate
    expect(targets.find((l) => l.code === 'it')).toBeUndefined(); // no engine serves Italian
    const sources = await translator.getSourceLanguages();
    expect(sources.map((l) => l.code)).toContain('en');
  });

  it('reports quota and auth failures as deepl-node expects them', async () => {
    await expect(h.translator('wrong-key').translateText('a', null, 'de')).rejects.toBeInstanceOf(
      deepl.AuthorizationError,
    );
    const { secret: blocked, id } = await h.createKey('blocked');
    expect(
      (await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: 0 })).status,
    ).toBe(200);
    await expect(h.translator(blocked).translateText('a', null, 'de')).rejects.toBeInstanceOf(
      deepl.QuotaExceededError,
    );
  });
});

describe('a key at its character limit', () => {
  it('regression: at its limit a key still reads usage (limitReached) and both language lists with deepl-node', async () => {
    const { secret: capped, id } = await h.createKey('capped');
    expect(
      (await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: 5 })).status,
    ).toBe(200);
    const translator = h.translator(capped);
    await translator.translateText('abcde', 'en', 'de');
    await expect(translator.translateText('f', 'en', 'de')).rejects.toBeInstanceOf(deepl.QuotaExceededError);

    // What a client does after a 456: read its quota.
    const usage = await translator.getUsage();
    expect(usage.character).toMatchObject({ count: 5, limit: 5 });
    expect(usage.character?.limitReached()).toBe(true);
    expect(usage.anyLimitReached()).toBe(true);
    expect((await translator.getTargetLanguages()).map((l) => l.code)).toContain('en-GB');
    expect((await translator.getSourceLanguages()).map((l) => l.code)).toContain('en');
    const v3 = await h.call('GET', '/v3/languages', { key: capped });
    expect(v3.status).toBe(200);

    // Work that would be billed stays refused, however small.
    const empty = await h.call('POST', '/v2/translate', {
      key: capped,
      json: { text: [''], target_lang: 'DE' },
    });
    expect([empty.status, empty.body.message]).toEqual([456, expect.stringMatching(/limit/)]);
    const blocked = await h.createKey('blocked at 0');
    await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: blocked.id, characters: 0 });
    const zero = await h.translator(blocked.secret).getUsage();
    expect([zero.character?.count, zero.character?.limit, zero.anyLimitReached()]).toEqual([0, 0, true]);
  });
});

describe('POST /v2/translate over the wire', () => {
  it('answers JSON requests with X-Trace-ID and optional fields only when asked', async () => {
    const res = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['Hi'], target_lang: 'DE' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body).toEqual({ translations: [{ detected_source_language: 'EN', text: 'HI' }] });
    const tagged = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['<p>Hi</p>'], target_lang: 'DE', tag_handling: 'xml', show_billed_characters: true },
    });
    expect(tagged.body.translations).toEqual([
      { detected_source_language: 'EN', text: '<p>HI</p>', billed_characters: 9, tag_handling_version: 'v2' },
    ]);
    // model_type_used only when model_type was sent; LibreTranslate (French) runs its one model.
    const modelled = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['Hi'], target_lang: 'fr', source_lang: 'en', model_type: 'prefer_quality_optimized' },
    });
    expect(modelled.body.translations).toEqual([
      { detected_source_language: 'EN', text: 'HI', model_type_used: 'latency_optimized' },
    ]);
  });

  it('keeps 21+ repeated form texts as a list', async () => {
    const form = `target_lang=de&${Array.from({ length: 30 }, (_, i) => `text=w${i}`).join('&')}`;
    const res = await h.call('POST', '/v2/translate', { key: secret, form });
    expect(res.body.translations).toHaveLength(30);
    expect(res.body.translations[29].text).toBe('W29');
  });

  it('gives 400 {message} with X-Trace-ID naming the parameter', async () => {
    const res = await h.call('POST', '/v2/translate', { key: secret, form: 'text=a&target_lang=xx' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Value for 'target_lang' not supported." });
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    const pair = await h.call('POST', '/v2/translate', { key: secret, form: 'text=a&target_lang=it' });
    expect(pair.status).toBe(400);
    expect(pair.body.message).toMatch(/No configured translation engine translates into 'IT'/);
  });

  it('answers every validation rule with 400 {message} naming the parameter, in forms and JSON', async () => {
    const forms: Array<[string, string]> = [
      ['target_lang=de', "'text'"],
      [`target_lang=de&${'text=a&'.repeat(51)}`, "'text'"],
      ['text=a&target_lang=de&source_lang=xx', "'source_lang'"],
      ['text=a&target_lang=de&formality=very', "'formality'"],
      ['text=a&target_lang=en-us&formality=less', 'formality'],
      ['text=a&target_lang=de&split_sentences=maybe', "'split_sentences'"],
      ['text=a&target_lang=de&preserve_formatting=2', "'preserve_formatting'"],
      ['text=a&target_lang=de&outline_detection=2', "'outline_detection'"],
      ['text=a&target_lang=de&model_type=turbo', "'model_type'"],
      ['text=a&target_lang=de&tag_handling=md', "'tag_handling'"],
      ['text=a&target_lang=de&glossary_id=g', "'source_lang'"],
      ['text=a&target_lang=de&source_lang=en&glossary_id=g&glossary_ids=h', "'glossary_id'"],
      ['text=a&target_lang=de&source_lang=en&glossary_ids=1,2,3,4,5,6', "'glossary_ids'"],
      ['text=a&target_lang=de&style_id=s&style_id=t', "'style_id'"],
      ['text=a&target_lang=de&tag_handling=xml&tag_handling_version=v3', "'tag_handling_version'"],
      ['text=a&target_lang=de&translation_memory_threshold=x', "'translation_memory_threshold'"],
      ['text=a&target_lang=nl&custom_instructions=Be%20brief', "'custom_instructions'"],
      [`text=a&target_lang=de&custom_instructions=${'x'.repeat(301)}`, "'custom_instructions'"],
      [`text=a&target_lang=de&${'custom_instructions=x&'.repeat(11)}`, "'custom_instructions'"],
      ['text=%3Ca%3Eb%3C%2Fc%3E&target_lang=de&tag_handling=xml', "'text'"],
    ];
    for (const [form, names] of forms) {
      const res = await h.call('POST', '/v2/translate', { key: secret, form });
      expect([res.status, res.body.message], form).toEqual([400, expect.stringContaining(names)]);
      expect(Object.keys(res.body)).toEqual(['message']);
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    }
    const json: Array<[Record<string, unknown>, string]> = [
      [{ text: 'a', target_lang: 5 }, "'target_lang'"],
      [{ text: [null], target_lang: 'de' }, "'text'"],
      [{ text: 'a', target_lang: 'de', show_billed_characters: 'often' }, "'show_billed_characters'"],
      [{ text: 'a', target_lang: 'de', ignore_tags: { a: 1 } }, "'ignore_tags'"],
      [
        { text: 'a', target_lang: 'de', tag_handling: 'xml', tag_handling_version: 'v9' },
        "'tag_handling_version'",
      ],
      [{ text: 'a', target_lang: 'de', custom_instructions: Array(11).fill('x') }, "'custom_instructions'"],
      [{ text: 'a', target_lang: 'de', translation_memory_threshold: 150 }, "'translation_memory_threshold'"],
    ];
    for (const [body, names] of json) {
      const res = await h.call('POST', '/v2/translate', { key: secret, json: body });
      expect([res.status, res.body.message], JSON.stringify(body)).toEqual([
        400,
        expect.stringContaining(names),
      ]);
    }
    const broken = await fetch(`${h.t.url}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${secret}`, 'content-type': 'application/json' },
      body: '{"text": [',
    });
    expect([broken.status, await broken.json()]).toEqual([
      400,
      { message: 'Request body is not valid JSON.' },
    ]);
  });

  it('answers 404 for glossaries, style lists and translation memories that do not exist', async () => {
    const glossary = await h.call('POST', '/v2/translate', {
      key: secret,
      form: 'text=a&target_lang=de&source_lang=en&glossary_id=g1',
    });
    expect([glossary.status, glossary.body.message]).toEqual([404, "Glossary 'g1' not found."]);
    const tm = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['a'], target_lang: 'de', translation_memory_id: 'tm1' },
    });
    expect(tm.status).toBe(404);
  });

  it('refuses bodies over 128 KiB with 413 and other media types with 415', async () => {
    const big = await h.call('POST', '/v2/translate', {
      key: secret,
      form: `target_lang=de&text=${'a'.repeat(128 * 1024)}`,
    });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/128 KiB/);
    expect(big.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    const res = await fetch(`${h.t.url}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${secret}`, 'content-type': 'text/xml' },
      body: '<text>a</text>',
    });
    expect([res.status, res.headers.get('x-trace-id')]).toEqual([
      415,
      expect.stringMatching(/^[0-9a-f]{32}$/),
    ]);
    expect(((await res.json()) as { message: string }).message).toMatch(/Content-Type/);
  });

  it('refuses missing, unknown and malformed credentials with 403', async () => {
    for (const headers of [{}, { authorization: 'DeepL-Auth-Key nope' }, { authorization: 'Basic abc' }]) {
      const res = await h.call('POST', '/v2/translate', { headers, form: 'text=a&target_lang=de' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Forbidden' });
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    }
    expect((await h.call('GET', '/v2/usage')).status).toBe(403);
    expect((await h.call('GET', '/v2/languages')).status).toBe(403);
  });

  it('gh-audit: refuses the legacy auth_key query parameter and keeps the key out of the log', async () => {
    const { secret: legacy } = await h.createKey('legacy');
    const res = await h.call('GET', `/v2/usage?type=x&auth_key=${encodeURIComponent(legacy)}`);
    expect(res.status).toBe(403);
    const logs = JSON.stringify(h.t.logs);
    expect(logs).toContain('/v2/usage?type=x&auth_key='); // the request was logged
    expect(logs).not.toContain(encodeURIComponent(legacy));
    expect(logs).not.toContain(legacy);
  });

  it('answers a repeated request from the cache without calling the upstream', async () => {
    const body = { text: ['The washing machine has finished'], target_lang: 'DE', source_lang: 'EN' };
    const before = upstream.calls('/v2/translate').length;
    const first = await h.call('POST', '/v2/translate', { key: secret, json: body });
    const second = await h.call('POST', '/v2/translate', { key: secret, json: body });
    expect(second.body).toEqual(first.body);
    expect(upstream.calls('/v2/translate').length).toBe(before + 1);
    const formal = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { ...body, formality: 'more' },
    });
    expect(formal.status).toBe(200);
    expect(upstream.calls('/v2/translate').length).toBe(before + 2); // another option, another cache entry
  });

  it('makes one upstream call for a burst of identical requests', async () => {
    upstream.trouble({ delayMs: 1000, times: 1, path: '/v2/translate' });
    const before = upstream.calls('/v2/translate').length;
    const body = { text: ['Someone is at the door'], target_lang: 'DE', source_lang: 'EN' };
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => h.call('POST', '/v2/translate', { key: secret, json: body })),
    );
    expect(burst.map((r) => r.body.translations?.[0]?.text)).toEqual(
      Array(10).fill('SOMEONE IS AT THE DOOR'),
    );
    expect(upstream.calls('/v2/translate').length).toBe(before + 1);
  });

  it('never leaks the upstream key, even when the upstream fails and quotes it', async () => {
    const quoting = JSON.stringify({ message: `Quota exceeded for key ${UPSTREAM_KEY}` });
    upstream.trouble({ status: 456, body: quoting, path: '/v2/translate' });
    lt.trouble({ status: 500, body: '{"error":"down"}', path: '/translate' });
    const res = await h.call('POST', '/v2/translate', {
      key: secret,
      json: { text: ['new text'], target_lang: 'DE' },
    });
    upstream.heal();
    lt.heal();
    expect(res.status).toBe(503); // one engine was transiently down: worth a retry
    expect(res.body.message).toContain('Quota exceeded for key ***'); // the upstream's words, key scrubbed
    expect(JSON.stringify(res.body)).not.toContain(UPSTREAM_KEY);
    expect(JSON.stringify(h.t.logs)).not.toContain(UPSTREAM_KEY);
  });

  it('gh-review: unmatched /v2 and /v3 requests answer 404/405 {message} with X-Trace-ID', async () => {
    const cases: Array<[string, string, number, string | null]> = [
      ['GET', '/v2/nope', 404, null],
      ['GET', '/v3/nope', 404, null],
      ['GET', '/v2/translate', 405, 'POST'],
      ['DELETE', '/v2/usage', 405, 'GET, HEAD, POST'],
      ['PATCH', '/v2/admin/developer-keys', 405, 'GET, HEAD, POST'],
    ];
    for (const [method, path, status, allow] of cases) {
      const res = await h.call(method, path, { key: h.t.adminKey });
      expect([res.status, res.headers.get('allow')], `${method} ${path}`).toEqual([status, allow]);
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
      expect(Object.keys(res.body)).toEqual(['message']);
    }
    // The admin guard still comes first: an unknown admin path without the admin key is 403.
    const guarded = await h.call('GET', '/v2/admin/nope', { key: secret });
    expect([guarded.status, guarded.headers.get('x-trace-id')]).toEqual([403, expect.any(String)]);
  });

  it('serves /v3/languages for translate_text', async () => {
    const res = await h.call('GET', '/v3/languages?resource=translate_text', { key: secret });
    expect(res.status).toBe(200);
    expect(res.body.find((l: { lang: string }) => l.lang === 'de')).toMatchObject({
      usable_as_source: true,
      usable_as_target: true,
      features: { formality: { status: 'stable' } },
    });
    expect((await h.call('GET', '/v3/languages?resource=voice', { key: secret })).status).toBe(400);
  });
});
