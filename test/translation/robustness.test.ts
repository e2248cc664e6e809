import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeLibre } from './fakes/libretranslate.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub } from './harness.ts';

let h: TranslationHub;
let lt: FakeUpstream;
let secret: string;
let sitekey: string;

beforeAll(async () => {
  lt = await fakeLibre();
  h = await startTranslation({ plugins: ['lighting'], engines: [{ type: 'libretranslate', url: lt.url }] });
  secret = (await h.createKey('fuzz')).secret;
  sitekey = ((await h.t.admin('POST', '/admin/sites', { name: 'Fuzz' })).body as { sitekey: string }).sitekey;
});
afterAll(async () => {
  await h.t.stop();
  await lt.close();
});

/** Values of every JSON type, including ones no field expects. */
const junkValues: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  '',
  'x',
  [],
  [1],
  [null],
  {},
  { a: 1 },
  'x'.repeat(400),
  [[['deep']]],
];

describe('bad input never causes a 5xx or a hang', () => {
  it('survives junk in every field of every endpoint', async () => {
    const targets: Array<{ method: string; path: string; fields: string[]; key: string }> = [
      {
        method: 'POST',
        path: '/v2/translate',
        key: secret,
        fields: [
          'text',
          'target_lang',
          'source_lang',
          'context',
          'show_billed_characters',
          'split_sentences',
          'preserve_formatting',
          'formality',
          'model_type',
          'glossary_id',
          'glossary_ids',
          'style_id',
          'translation_memory_id',
          'translation_memory_threshold',
          'custom_instructions',
          'tag_handling',
          'tag_handling_version',
          'outline_detection',
          'non_splitting_tags',
          'splitting_tags',
          'ignore_tags',
          'enable_beta_languages',
        ],
      },
      { method: 'POST', path: '/v2/admin/developer-keys', key: h.t.adminKey, fields: ['label'] },
      {
        method: 'PUT',
        path: '/v2/admin/developer-keys/label',
        key: h.t.adminKey,
        fields: ['key_id', 'label'],
      },
      {
        method: 'PUT',
        path: '/v2/admin/developer-keys/limits',
        key: h.t.adminKey,
        fields: ['key_id', 'characters', 'speech_to_text_milliseconds'],
      },
      { method: 'PUT', path: '/v2/admin/developer-keys/deactivate', key: h.t.adminKey, fields: ['key_id'] },
      {
        method: 'POST',
        path: `/api/site/${sitekey}/announce`,
        key: '',
        fields: ['text', 'source_lang', 'target_langs'],
      },
    ];
    const base: Record<string, unknown> = { text: ['hello'], target_lang: 'de', target_langs: ['de'] };
    let requests = 0;
    for (const target of targets) {
      for (const field of target.fields) {
        for (const value of junkValues) {
          const res = await h.call(target.method, target.path, {
            key: target.key,
            json: { ...base, [field]: value },
          });
          requests++;
          expect(res.status, `${target.path} ${field}=${JSON.stringify(value)}`).toBeLessThan(500);
          if (res.status >= 400) expect(typeof res.body?.message, `${target.path} ${field}`).toBe('string');
        }
      }
      for (const raw of ['', '{', '[]', 'null', '"text"', randomBytes(64).toString('latin1')]) {
        for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
          const res = await fetch(`${h.t.url}${target.path}`, {
            method: target.method,
            headers: { authorization: `DeepL-Auth-Key ${target.key}`, 'content-type': type },
            body: raw,
          });
          requests++;
          expect(res.status, `${target.path} ${type} ${JSON.stringify(raw)}`).toBeLessThan(500);
        }
      }
    }
    expect(requests).toBeGreaterThan(400);
  });

  it('translates hostile markup without breaking it', async () => {
    const texts = [
      '<a><b><c>deep</c></b></a>',
      '<p>unclosed <b>bold',
      '</stray> text',
      '<![CDATA[ x < y ]]> after',
      '<?xml version="1.0"?><r>ok</r>',
      '<p title="a &amp; b">&lt;tag&gt; &amp; &#x1F600;</p>',
    ];
    for (const tagHandling of ['xml', 'html']) {
      for (const text of texts) {
        const res = await h.call('POST', '/v2/translate', {
          key: secret,
          json: {
            text: [text],
            target_lang: 'de',
            source_lang: 'en',
            tag_handling: tagHandling,
            tag_handling_version: 'v1',
          },
        });
        expect(res.status, `${tagHandling} ${text}`).toBe(200);
        const out = res.body.translations[0].text as string;
        // Every tag of the input is still there, in order.
        const tags = (s: string) => s.match(/<[^>]*>/g) ?? [];
        expect(tags(out), text).toEqual(tags(text));
      }
    }
  });
});

describe('a key at its character limit', () => {
  it('regression: validation errors come before 456 (malformed XML, an unknown glossary, rephrase without an able engine)', async () => {
    const made = await h.admin('POST', '/v2/admin/developer-keys', { label: 'at limit' });
    await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: made.body.key_id, characters: 5 });
    const key = made.body.key as string;
    const translate = (form: string) => h.call('POST', '/v2/translate', { key, form });
    expect((await translate('text=Hello&target_lang=DE')).status).toBe(200); // 5 of 5 used
    expect((await translate('text=Hello&target_lang=DE')).status).toBe(456);
    // Each of these is wrong whatever the quota: the client must learn what to fix, not to wait a month.
    const xml = await translate('text=%3Cb%3EHi&target_lang=DE&tag_handling=xml&tag_handling_version=v2');
    expect(xml.status).toBe(400);
    const glossary = await translate(
      'text=Hi&source_lang=EN&target_lang=DE&glossary_id=00000000-0000-4000-8000-000000000000',
    );
    expect(glossary.status).toBe(404);
    expect((await translate('text=Hi&target_lang=XX')).status).toBe(400);
    const rephrase = await h.call('POST', '/v2/write/rephrase', { key, form: 'text=Hi' });
    expect([rephrase.status, rephrase.body.message]).toEqual([
      400,
      expect.stringMatching(/only DeepL and LLM/),
    ]);
  });
});
