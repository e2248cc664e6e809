import * as deepl from 'deepl-node';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { fakeOpenAi } from './fakes/openai.ts';
import { bodyOf, type FakeUpstream } from './fakes/server.ts';
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
const client = (h: TranslationHub, secret: string) =>
  new deepl.DeepLClient(secret, { serverUrl: h.t.url, maxRetries: 0, minTimeout: 5000 });

const systemPrompt = (llm: FakeUpstream, i: number) =>
  (bodyOf(llm.calls('/v1/chat/completions')[i] as never).messages as Array<{ content: string }>)[0]
    ?.content ?? '';

describe('rephrase and correct', () => {
  it('DeepL: rephraseText with a writing style or a tone reaches /v2/write/rephrase; correct reaches /v2/write/correct', async () => {
    const up = await fake(fakeDeepl());
    const h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'upstream-secret-key:fx' }] });
    const { secret: key } = await h.createKey();
    const c = client(h, key);
    const one = await c.rephraseText('I think teh lamp is on.', 'en-US', deepl.WritingStyle.BUSINESS);
    expect(one).toEqual({
      text: 'I think the lamp is on. [business]',
      detectedSourceLang: 'en',
      targetLang: 'en-US',
    });
    const two = await c.rephraseText(['Hello', 'Bye'], null, null, deepl.WritingTone.PREFER_FRIENDLY);
    expect(two.map((r) => r.text)).toEqual(['Hello [prefer_friendly]', 'Bye [prefer_friendly]']);
    // No target: the text keeps its own language, spelled as DeepL answers it (en-US, never plain en).
    expect(two[0]?.targetLang).toBe('en-US');
    const sent = up.calls('/v2/write/rephrase').map(bodyOf);
    expect(sent).toEqual([
      { text: ['I think teh lamp is on.'], target_lang: 'en-US', writing_style: 'business' },
      { text: ['Hello', 'Bye'], tone: 'prefer_friendly' },
    ]);
    // deepl-node has no correct call: the raw wire, form-encoded as the clients send.
    const corrected = await h.call('POST', '/v2/write/correct', {
      key,
      form: 'text=teh+door&target_lang=de',
    });
    expect(corrected.status).toBe(200);
    expect(corrected.body).toEqual({
      improvements: [{ detected_source_language: 'en', target_language: 'de', text: 'the door [corrected]' }],
    });
    expect(up.calls('/v2/write/correct').map(bodyOf)).toEqual([{ text: ['teh door'], target_lang: 'de' }]);
  });

  it('LLM: the writing style or tone shapes the prompt, and correct asks for corrections only', async () => {
    const libre = await fake(fakeLibre());
    const llm = await fake(fakeOpenAi());
    const h = await hub({
      engines: [
        { type: 'libretranslate', url: libre.url },
        { type: 'openai', url: `${llm.url}/v1`, model: 'm' },
      ],
    });
    const { secret: key } = await h.createKey();
    const c = client(h, key);
    const styled = await c.rephraseText('teh light', 'en-GB', deepl.WritingStyle.ACADEMIC);
    expect(styled).toEqual({ text: 'the light [academic]', detectedSourceLang: 'en', targetLang: 'en-GB' });
    expect(systemPrompt(llm, 0)).toContain('Use an academic writing style.');
    expect(systemPrompt(llm, 0)).toContain('English (British) (en-GB)');
    const toned = await c.rephraseText('teh light', 'en', null, deepl.WritingTone.DIPLOMATIC);
    expect(toned.text).toBe('the light [diplomatic]');
    await c.rephraseText('teh light', 'de', deepl.WritingStyle.PREFER_SIMPLE);
    expect(systemPrompt(llm, 2)).toContain('Where it suits the text, use a simple writing style.');
    const corrected = await h.call('POST', '/v2/write/correct', { key, json: { text: ['teh light'] } });
    expect(corrected.body.improvements[0].text).toBe('the light [plain]');
    expect(systemPrompt(llm, 3)).toContain('fix spelling, grammar and punctuation only');
    expect(systemPrompt(llm, 3)).toContain('Keep each string in the language it is written in.');
    expect(libre.calls('/translate')).toHaveLength(0);
  });

  it('refuses style and tone together, unknown values and targets, style on correct, other bodies, and engines that cannot', async () => {
    const llm = await fake(fakeOpenAi());
    const h = await hub({ engines: [{ type: 'openai', url: `${llm.url}/v1`, model: 'm' }] });
    const { secret: key } = await h.createKey();
    const c = client(h, key);
    await expect(
      c.rephraseText('Hi', 'en-US', deepl.WritingStyle.CASUAL, deepl.WritingTone.FRIENDLY),
    ).rejects.toThrow(/writing_style.*tone/);
    const rephrase = (form: string) => h.call('POST', '/v2/write/rephrase', { key, form });
    expect((await rephrase('text=Hi&writing_style=poetic')).body.message).toBe(
      "Value for 'writing_style' not supported.",
    );
    expect((await rephrase('text=Hi&tone=angry')).status).toBe(400);
    expect((await rephrase('text=Hi&target_lang=nl')).body.message).toBe(
      "Value for 'target_lang' not supported.",
    );
    expect((await rephrase('target_lang=de')).status).toBe(400);
    // `default` is no choice at all, so it combines with the other.
    expect((await rephrase('text=Hi&writing_style=default&tone=friendly')).status).toBe(200);
    const styleOnCorrect = await h.call('POST', '/v2/write/correct', { key, form: 'text=Hi&tone=friendly' });
    expect(styleOnCorrect.status).toBe(400);
    const xml = await fetch(`${h.t.url}/v2/write/rephrase`, {
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${key}`, 'content-type': 'text/xml' },
      body: '<text>Hi</text>',
    });
    expect(xml.status).toBe(415);
    expect(llm.calls('/v1/chat/completions')).toHaveLength(1);

    const libreOnly = await hub({
      engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }],
    });
    const other = await libreOnly.createKey();
    const refused = await libreOnly.call('POST', '/v2/write/rephrase', {
      key: other.secret,
      form: 'text=Hi',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/only DeepL and LLM engines/);
  });

  it('DeepL’s wording: target_language en-US / pt-PT for en / pt, and the style-and-tone refusal', async () => {
    const llm = await fake(fakeOpenAi());
    const h = await hub({ engines: [{ type: 'openai', url: `${llm.url}/v1`, model: 'm' }] });
    const { secret: key } = await h.createKey();
    for (const [given, answered] of [
      ['en', 'en-US'],
      ['EN', 'en-US'],
      ['pt', 'pt-PT'],
      ['en-GB', 'en-GB'],
      ['pt-BR', 'pt-BR'],
      ['de', 'de'],
    ] as const) {
      for (const path of ['/v2/write/rephrase', '/v2/write/correct']) {
        const res = await h.call('POST', path, { key, form: `text=Hi&target_lang=${given}` });
        expect(res.status, `${path} ${given}`).toBe(200);
        expect(res.body.improvements[0].target_language, `${path} ${given}`).toBe(answered);
      }
    }
    const both = await h.call('POST', '/v2/write/rephrase', {
      key,
      form: 'text=Hi&writing_style=casual&tone=friendly',
    });
    expect(both).toMatchObject({
      status: 400,
      body: {
        message:
          'Bad request. Reason: Both writing_style and tone defined. Currently only style OR tone can be chosen for a single request.',
      },
    });
  });

  it('bills text improvement characters: usage, analytics and the key limit (456)', async () => {
    const llm = await fake(fakeOpenAi());
    const h = await hub({ engines: [{ type: 'openai', url: `${llm.url}/v1`, model: 'm' }] });
    const { secret: key, id } = await h.createKey('writer');
    const c = client(h, key);
    await c.rephraseText(['Hello', 'Bye'], 'en-US'); // 8 characters
    await c.translateText('Hallo', 'de', 'en-US'); // 5 characters
    expect((await c.getUsage()).character?.count).toBe(13);
    const today = new Date().toISOString().slice(0, 10);
    const report = await h.admin(
      'GET',
      `/v2/admin/analytics?start_date=${today}&end_date=${today}&group_by=key`,
    );
    const usage = report.body.usage_report.key_usages.find(
      (r: { api_key_label: string }) => r.api_key_label === 'writer',
    ).usage;
    expect(usage).toMatchObject({
      total_characters: 13,
      text_translation_characters: 5,
      text_improvement_characters: 8,
    });

    // A failed improvement is not billed.
    llm.trouble({ path: '/v1/chat/completions', status: 500 });
    await expect(c.rephraseText('x', 'en-US')).rejects.toThrow();
    expect((await c.getUsage()).character?.count).toBe(13);
    llm.heal();

    await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: 16 });
    await expect(c.rephraseText('four', 'en-US')).rejects.toThrow(deepl.QuotaExceededError);
    await c.rephraseText('thr', 'en-US');
    expect((await c.getUsage()).character?.count).toBe(16);
  });
});
