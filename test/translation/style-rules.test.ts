import * as deepl from 'deepl-node';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { fakeOpenAi } from './fakes/openai.ts';
import { bodyOf, type FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub, wrap } from './harness.ts';

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

const RULES = {
  dates_and_times: { calendar_era: 'use_bc_and_ad' },
  punctuation: { quotation_mark: 'use_guillemets' },
};

describe('style rule lists through deepl-node', () => {
  it('create, list (paged, detailed), get, rename, replace rules, add/get/update/delete an instruction, delete', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    const created = await c.createStyleRule({
      name: 'House style',
      language: 'en',
      configured_rules: RULES,
      custom_instructions: [{ label: 'Lights', prompt: 'Call lamps "lights".' }],
    });
    expect(created).toMatchObject({ name: 'House style', language: 'en', version: 1 });
    expect(created.configuredRules?.datesAndTimes).toEqual({ calendar_era: 'use_bc_and_ad' });
    expect(created.customInstructions?.map((i) => i.label)).toEqual(['Lights']);
    const id = created.styleId;
    const second = await c.createStyleRule({ name: 'Second', language: 'de' });

    const summary = await c.getAllStyleRules();
    expect(summary.map((s) => s.styleId)).toEqual([id, second.styleId]);
    expect(summary[0]?.configuredRules).toBeUndefined(); // not detailed
    const detailed = await c.getAllStyleRules(0, 1, true);
    expect(detailed.map((s) => s.styleId)).toEqual([id]);
    expect(detailed[0]?.customInstructions?.[0]?.prompt).toBe('Call lamps "lights".');
    expect((await c.getAllStyleRules(1, 1)).map((s) => s.styleId)).toEqual([second.styleId]);

    const renamed = await c.updateStyleRuleName(id, 'Home style');
    expect(renamed).toMatchObject({ name: 'Home style', version: 2 });
    const replaced = await c.updateStyleRuleConfiguredRules(id, {
      numbers: { decimal_separator: 'use_comma' },
    });
    expect(replaced.configuredRules).toEqual({ numbers: { decimal_separator: 'use_comma' } });

    const added = await c.createStyleRuleCustomInstruction(id, {
      label: 'Doors',
      prompt: 'Say "door", never "gate".',
      source_language: 'de',
    });
    expect(added).toMatchObject({ label: 'Doors', sourceLanguage: 'de' });
    expect(await c.getStyleRuleCustomInstruction(id, added.id as string)).toEqual(added);
    const updated = await c.updateStyleRuleCustomInstruction(id, added.id as string, {
      label: 'Doors',
      prompt: 'Say "front door".',
    });
    expect(updated).toMatchObject({ id: added.id, prompt: 'Say "front door".' });
    expect((await c.getStyleRule(id)).customInstructions?.map((i) => i.label)).toEqual(['Lights', 'Doors']);
    await c.deleteStyleRuleCustomInstruction(id, added.id as string);
    await expect(c.getStyleRuleCustomInstruction(id, added.id as string)).rejects.toThrow(/not found/i);
    expect((await c.getStyleRule(id)).version).toBe(6);

    await c.deleteStyleRule(id);
    await expect(c.getStyleRule(id)).rejects.toThrow(/not found/i);
    expect((await c.getAllStyleRules()).map((s) => s.styleId)).toEqual([second.styleId]);
  });

  it('refuses invalid lists and instructions with 400 (415 for a form) and stores nothing', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret: key } = await h.createKey();
    const post = (json: unknown) => h.call('POST', '/v3/style_rules', { key, json });
    const bad = [
      { name: 'x', language: 'nl' },
      { name: '', language: 'en' },
      { name: 'x'.repeat(1025), language: 'en' },
      { name: 'x', language: 'en', configured_rules: { colours: { a: 'b' } } },
      { name: 'x', language: 'en', configured_rules: { numbers: { decimal_separator: 3 } } },
      { name: 'x', language: 'en', custom_instructions: [{ label: 'l', prompt: 'p'.repeat(301) }] },
      { name: 'x', language: 'en', custom_instructions: [{ label: 'l'.repeat(101), prompt: 'p' }] },
      { name: 'x', language: 'en', custom_instructions: [{ label: 'l' }] },
      {
        name: 'x',
        language: 'en',
        custom_instructions: Array.from({ length: 201 }, () => ({ label: 'l', prompt: 'p' })),
      },
    ];
    for (const json of bad) {
      const res = await post(json);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await h.call('POST', '/v3/style_rules', { key, form: 'name=x&language=en' })).status).toBe(415);
    expect((await h.call('GET', '/v3/style_rules?page_size=26', { key })).status).toBe(400);
    expect((await h.call('GET', '/v3/style_rules', { key })).body).toEqual({ style_rules: [] });
    // A variant is a language of its own; the answer spells it as the API does.
    expect((await post({ name: 'GB', language: 'EN-gb' })).body.language).toBe('en-GB');
  });

  it('keeps each account to its own lists, across a restart (another key gets 404 and an empty list)', async () => {
    let h = await startTranslation({
      engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }],
    });
    const a = await h.createKey('a');
    const b = await h.createKey('b');
    const made = await client(h, a.secret).createStyleRule({ name: 'Mine', language: 'fr' });
    const other = client(h, b.secret);
    await expect(other.getStyleRule(made.styleId)).rejects.toThrow(/not found/i);
    await expect(other.deleteStyleRule(made.styleId)).rejects.toThrow(/not found/i);
    expect(await other.getAllStyleRules()).toEqual([]);
    const refused = await h.call('POST', '/v2/translate', {
      key: b.secret,
      json: { text: ['Hello'], target_lang: 'FR', style_id: made.styleId },
    });
    expect(refused.status).toBe(404);

    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    expect((await client(h, a.secret).getStyleRule(made.styleId)).name).toBe('Mine');
  });
});

describe('style rules applied on every engine', () => {
  it('DeepL: a copy is made upstream once, its style_id forwarded, replaced when the list changes, deleted with it', async () => {
    const up = await fake(fakeDeepl());
    const h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'upstream-secret-key:fx' }] });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    const list = await c.createStyleRule({ name: 'House', language: 'de', configured_rules: RULES });
    await c.translateText('Hello', 'en', 'de', { styleRule: list.styleId });
    await c.translateText('Good night', 'en', 'de', { styleRule: list });
    const copies = () => [...up.styleRules.keys()];
    expect(copies()).toHaveLength(1);
    const copy = up.styleRules.get(copies()[0] as string) as Record<string, unknown>;
    expect(copy).toMatchObject({ language: 'de', configured_rules: RULES });
    const sent = up.calls('/v2/translate').map((r) => bodyOf(r).style_id);
    expect(sent).toEqual([copies()[0], copies()[0]]);

    await c.createStyleRuleCustomInstruction(list.styleId, { label: 'Tone', prompt: 'Use "du".' });
    await c.translateText('Hello again', 'en', 'de', { styleRule: list.styleId });
    expect(copies()).toHaveLength(1); // the old copy went, a new one holds the instruction
    const fresh = up.styleRules.get(copies()[0] as string) as { custom_instructions: unknown[] };
    expect(fresh.custom_instructions).toEqual([{ label: 'Tone', prompt: 'Use "du".' }]);
    expect(bodyOf(up.calls('/v2/translate').at(-1) as never).style_id).toBe(copies()[0]);

    await c.deleteStyleRule(list.styleId);
    await expect.poll(() => copies()).toEqual([]);
  });

  it('LLM: the configured rules and instructions go into the prompt; LibreTranslate is skipped for style_id', async () => {
    const libre = await fake(fakeLibre());
    const llm = await fake(fakeOpenAi());
    const h = await hub({
      engines: [
        { type: 'libretranslate', url: libre.url },
        { type: 'openai', url: `${llm.url}/v1`, model: 'm' },
      ],
    });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    const list = await c.createStyleRule({
      name: 'House',
      language: 'de',
      configured_rules: RULES,
      custom_instructions: [
        { label: 'Lights', prompt: 'Call lamps "Licht".' },
        { label: 'From French', prompt: 'Keep French names.', source_language: 'fr' },
      ],
    });
    const result = await c.translateText('Turn on the lamp', 'en', 'de', { styleRule: list.styleId });
    expect(result.text).toBe('TURN ON THE LAMP');
    expect(libre.calls('/translate')).toHaveLength(0);
    const system = (
      bodyOf(llm.calls('/v1/chat/completions')[0] as never).messages as Array<{ content: string }>
    )[0]?.content;
    expect(system).toContain('Apply this style guide to every translation:');
    expect(system).toContain('- dates and times, calendar era: use bc and ad');
    expect(system).toContain('- Lights: Call lamps "Licht".');
    expect(system).not.toContain('Keep French names.'); // the source is English
    // Without a style_id LibreTranslate (first in the chain) serves as before.
    await c.translateText('Hello', 'en', 'de');
    expect(libre.calls('/translate')).toHaveLength(1);
  });

  it('refuses clearly: only engines without style rules (400 naming style_id), an unknown list (404), a target the list is not for (400)', async () => {
    const libre = await fake(fakeLibre());
    const h = await hub({ engines: [{ type: 'libretranslate', url: libre.url }] });
    const { secret: key } = await h.createKey();
    const c = client(h, key);
    const gb = await c.createStyleRule({ name: 'GB', language: 'en-GB' });
    const en = await c.createStyleRule({ name: 'EN', language: 'en' });
    const translate = (style_id: string, target_lang: string) =>
      h.call('POST', '/v2/translate', {
        key,
        json: { text: ['Hallo'], source_lang: 'DE', target_lang, style_id },
      });
    const only = await translate(en.styleId, 'EN-US');
    expect(only.status).toBe(400);
    expect(only.body.message).toMatch(/style_id/);
    expect((await translate('nope', 'EN-US')).status).toBe(404);
    const variant = await translate(gb.styleId, 'EN-US');
    expect(variant.status).toBe(400);
    expect(variant.body.message).toMatch(/en-GB.*EN-US/);
    expect((await translate(en.styleId, 'DE')).status).toBe(400);
    expect(libre.calls('/translate')).toHaveLength(0);
  });

  it('a list for a root language serves its variants; a variant list only that variant (LLM)', async () => {
    const llm = await fake(fakeOpenAi());
    const h = await hub({ engines: [{ type: 'openai', url: `${llm.url}/v1`, model: 'm' }] });
    const { secret: key } = await h.createKey();
    const c = client(h, key);
    const en = await c.createStyleRule({
      name: 'EN',
      language: 'en',
      custom_instructions: [{ label: 'a', prompt: 'Be brief.' }],
    });
    const gb = await c.createStyleRule({ name: 'GB', language: 'en-GB' });
    expect((await c.translateText('Hallo', 'de', 'en-US', { styleRule: en.styleId })).text).toBe('HALLO');
    expect((await c.translateText('Hallo', 'de', 'en-GB', { styleRule: en.styleId })).text).toBe('HALLO');
    expect((await c.translateText('Hallo', 'de', 'en-GB', { styleRule: gb.styleId })).text).toBe('HALLO');
    await expect(c.translateText('Hallo', 'de', 'en-US', { styleRule: gb.styleId })).rejects.toThrow(/en-GB/);
  });
});
