import { createHash } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
const entries = (o: Record<string, string>) => new deepl.GlossaryEntries({ entries: o });

describe('v3 multilingual glossaries through deepl-node (form encoding `dictionaries[0]…`)', () => {
  it('create, list, get, entries, merge, rename, replace, delete a dictionary, delete', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    const created = await c.createMultilingualGlossary('Home', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ lamp: 'Leuchte', hall: 'Flur' }) },
      { sourceLangCode: 'en', targetLangCode: 'fr', entries: entries({ lamp: 'lampe' }) },
    ]);
    expect(created.name).toBe('Home');
    expect(created.dictionaries).toEqual([
      { sourceLangCode: 'en', targetLangCode: 'de', entryCount: 2 },
      { sourceLangCode: 'en', targetLangCode: 'fr', entryCount: 1 },
    ]);
    const id = created.glossaryId;
    expect((await c.listMultilingualGlossaries()).map((g) => g.glossaryId)).toEqual([id]);
    expect((await c.getMultilingualGlossary(id)).creationTime).toEqual(created.creationTime);
    const de = await c.getMultilingualGlossaryDictionaryEntries(id, 'en', 'de');
    expect(de.entries.entries()).toEqual({ lamp: 'Leuchte', hall: 'Flur' });

    // PATCH merges: an existing source term takes the new target, new terms are added.
    const merged = await c.updateMultilingualGlossaryDictionary(id, {
      sourceLangCode: 'en',
      targetLangCode: 'de',
      entries: entries({ lamp: 'Lampe', door: 'Tür' }),
    });
    expect(merged.dictionaries[0]?.entryCount).toBe(3);
    expect((await c.getMultilingualGlossaryDictionaryEntries(id, 'en', 'de')).entries.entries()).toEqual({
      lamp: 'Lampe',
      hall: 'Flur',
      door: 'Tür',
    });
    expect((await c.updateMultilingualGlossaryName(id, 'House')).name).toBe('House');

    // PUT replaces one dictionary (or adds it), TSV or CSV.
    const replaced = await c.replaceMultilingualGlossaryDictionary(id, {
      sourceLangCode: 'en',
      targetLangCode: 'de',
      entries: entries({ roof: 'Dach' }),
    });
    expect(replaced).toEqual({ sourceLangCode: 'en', targetLangCode: 'de', entryCount: 1 });
    await c.replaceMultilingualGlossaryDictionaryWithCsv(id, 'en', 'es', 'lamp,lámpara\n"hall, big",salón\n');
    const es = await c.getMultilingualGlossaryDictionaryEntries(id, 'en', 'es');
    expect(es.entries.entries()).toEqual({ lamp: 'lámpara', 'hall, big': 'salón' });

    await c.deleteMultilingualGlossaryDictionary(id, 'en', 'fr');
    await expect(c.getMultilingualGlossaryDictionaryEntries(id, 'en', 'fr')).rejects.toBeInstanceOf(
      deepl.GlossaryNotFoundError,
    );
    expect((await c.getMultilingualGlossary(id)).dictionaries.map((d) => d.targetLangCode)).toEqual([
      'de',
      'es',
    ]);
    await c.deleteMultilingualGlossary(id);
    await expect(c.getMultilingualGlossary(id)).rejects.toBeInstanceOf(deepl.GlossaryNotFoundError);
    expect(await c.listMultilingualGlossaries()).toEqual([]);
  });

  it('accepts JSON bodies and four-column CSV, ignoring rows of another pair', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const res = await h.call('POST', '/v3/glossaries', {
      key: secret,
      json: {
        name: 'Json',
        dictionaries: [
          {
            source_lang: 'EN',
            target_lang: 'DE',
            entries: 'lamp,Leuchte,en,de\nlamp,lampe,en,fr\nhall,Flur,en,de',
            entries_format: 'csv',
          },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.dictionaries).toEqual([{ source_lang: 'en', target_lang: 'de', entry_count: 2 }]);
    const out = await h.call(
      'GET',
      `/v3/glossaries/${res.body.glossary_id}/entries?source_lang=en&target_lang=de`,
      {
        key: secret,
      },
    );
    expect(out.body).toEqual({
      dictionaries: [
        { source_lang: 'en', target_lang: 'de', entries: 'lamp\tLeuchte\nhall\tFlur', entries_format: 'tsv' },
      ],
    });
  });

  it('refuses duplicate and invalid terms, long names and oversized glossaries with 400, storing nothing', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    const dict = (tsv: string) => ({
      name: 'x',
      dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: tsv, entries_format: 'tsv' }],
    });
    for (const [body, said] of [
      [dict('lamp\tLampe\nlamp\tLeuchte'), 'duplicate source term'],
      [dict('lamp\tLa\u0085mpe'), 'control character'],
      [dict('lamp\t'), 'empty'],
      [dict('lamp\tLampe\textra'), 'tab'],
      [{ ...dict('a\tb'), name: 'n'.repeat(1025) }, 'name'],
      [dict(`${'a'.repeat(1025)}\tb`), '1024'],
      [{ name: 'x', dictionaries: [] }, 'dictionaries'],
      [
        { ...dict('a\tb'), dictionaries: [{ source_lang: 'en', target_lang: 'xx', entries: 'a\tb' }] },
        'target_lang',
      ],
    ] as const) {
      const res = await h.call('POST', '/v3/glossaries', { key: secret, json: body });
      expect([res.status, res.body.message]).toEqual([400, expect.stringContaining(said)]);
    }
    // The client's own error type for a 400.
    await expect(
      h.call('POST', '/v3/glossaries', {
        key: secret,
        form: 'name=x&dictionaries[0].source_lang=en&dictionaries[0].target_lang=de&dictionaries[0].entries=a%09b%0Aa%09c&dictionaries[0].entries_format=tsv',
      }),
    ).resolves.toMatchObject({ status: 400 });
    await expect(c.createMultilingualGlossaryWithCsv('x', 'en', 'de', 'a,b\na,c')).rejects.toThrow(
      /Bad request/,
    );
    // 10 MiB of entries is the limit (spec Limits).
    const big = Array.from({ length: 11 * 1024 }, (_, i) => `term${i}\t${'x'.repeat(1000)}`).join('\n');
    const res = await h.call('POST', '/v3/glossaries', { key: secret, json: dict(big) });
    expect([res.status, res.body.message]).toEqual([400, expect.stringContaining('10 MiB')]);
    expect(await c.listMultilingualGlossaries()).toEqual([]);
  });

  it('keeps each account to its own glossaries (another key gets 404 and an empty list)', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const a = await h.createKey('a');
    const b = await h.createKey('b');
    const g = await client(h, a.secret).createMultilingualGlossary('mine', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ lamp: 'Leuchte' }) },
    ]);
    const other = client(h, b.secret);
    expect(await other.listMultilingualGlossaries()).toEqual([]);
    await expect(other.getMultilingualGlossary(g.glossaryId)).rejects.toBeInstanceOf(
      deepl.GlossaryNotFoundError,
    );
    await expect(other.deleteMultilingualGlossary(g.glossaryId)).rejects.toBeInstanceOf(
      deepl.GlossaryNotFoundError,
    );
    await expect(other.translateText('the lamp', 'en', 'de', { glossary: g.glossaryId })).rejects.toThrow(
      /not found/i,
    );
    expect((await client(h, a.secret).getMultilingualGlossary(g.glossaryId)).name).toBe('mine');
  });

  it('holds at most 1000 glossaries per account', async () => {
    let h = await startTranslation({
      engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }],
    });
    const { secret, id } = await h.createKey();
    const glossaries: Record<string, unknown> = {};
    for (let i = 0; i < 999; i++) {
      const gid = `g-${i}`;
      glossaries[gid] = {
        glossary_id: gid,
        name: `n${i}`,
        creation_time: new Date(i * 1000).toISOString(),
        dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: [['a', 'b']] }],
        revision: 1,
      };
    }
    const name = createHash('sha256').update(`key:${id}`).digest('hex').slice(0, 24);
    writeFileSync(join(h.t.dataDir, `translation.glossaries-${name}.json`), JSON.stringify({ glossaries }));
    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    const c = client(h, secret);
    const dict = [{ sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ x: 'y' }) }];
    await c.createMultilingualGlossary('1000th', dict);
    await expect(c.createMultilingualGlossary('1001st', dict)).rejects.toThrow(/at most 1000/);
    expect(await c.listMultilingualGlossaries()).toHaveLength(1000);
  });

  it('survives a restart, in a file of its own', async () => {
    let h = await startTranslation({
      engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }],
    });
    const { secret } = await h.createKey();
    const g = await client(h, secret).createMultilingualGlossary('kept', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ lamp: 'Leuchte' }) },
    ]);
    const files = readdirSync(h.t.dataDir).filter((f) => f.startsWith('translation.glossaries-'));
    expect(files).toHaveLength(1);
    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    const again = await client(h, secret).getMultilingualGlossaryDictionaryEntries(g.glossaryId, 'en', 'de');
    expect(again.entries.entries()).toEqual({ lamp: 'Leuchte' });
  });
});

describe('v2 glossaries through deepl-node', () => {
  it('create (TSV and CSV), get, list, entries as TSV, language pairs, delete', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const t = h.translator(secret);
    const g = await t.createGlossary('v2', 'en', 'de', entries({ lamp: 'Leuchte', hall: 'Flur' }));
    expect(g).toMatchObject({ name: 'v2', ready: true, sourceLang: 'en', targetLang: 'de', entryCount: 2 });
    const csv = await t.createGlossaryWithCsv('csv', 'en', 'fr', Buffer.from('lamp,lampe\n'));
    expect(csv.entryCount).toBe(1);
    expect((await t.getGlossary(g.glossaryId)).name).toBe('v2');
    expect((await t.listGlossaries()).map((x) => x.name).sort()).toEqual(['csv', 'v2']);
    expect((await t.getGlossaryEntries(g)).entries()).toEqual({ lamp: 'Leuchte', hall: 'Flur' });
    const wrongAccept = await h.call('GET', `/v2/glossaries/${g.glossaryId}/entries`, {
      key: secret,
      headers: { accept: 'application/json' },
    });
    expect(wrongAccept.status).toBe(415);
    const pairs = await t.getGlossaryLanguagePairs();
    expect(pairs).toContainEqual({ sourceLang: 'en', targetLang: 'de' });
    await t.deleteGlossary(g);
    await expect(t.getGlossary(g.glossaryId)).rejects.toBeInstanceOf(deepl.GlossaryNotFoundError);
    // A multilingual glossary is not a v2 glossary.
    const multi = await client(h, secret).createMultilingualGlossary('multi', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ a: 'b' }) },
      { sourceLangCode: 'en', targetLangCode: 'fr', entries: entries({ a: 'c' }) },
    ]);
    await expect(t.getGlossary(multi.glossaryId)).rejects.toBeInstanceOf(deepl.GlossaryNotFoundError);
  });
});

describe('glossaries applied on every engine', () => {
  async function withGlossary(
    h: TranslationHub,
    secret: string,
    target = 'de',
    terms: Record<string, string> = { lamp: 'Leuchte' },
    source = 'en',
  ) {
    return client(h, secret).createMultilingualGlossary('g', [
      { sourceLangCode: source, targetLangCode: target, entries: entries(terms) },
    ]);
  }

  it('DeepL: a copy is created upstream once, used, replaced when the glossary changes and deleted with it', async () => {
    const up = await fake(fakeDeepl('k'));
    const h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'k' }] });
    const { secret } = await h.createKey();
    const g = await withGlossary(h, secret);
    const t = h.translator(secret);
    const first = await t.translateText('the lamp', 'en', 'de', { glossary: g.glossaryId });
    expect(first.text).toBe('THE Leuchte');
    await t.translateText('a lamp', 'en', 'de', { glossary: g.glossaryId });
    expect(up.calls('/v3/glossaries').filter((r) => r.method === 'POST')).toHaveLength(1);
    const sent = up.calls('/v2/translate').map((r) => bodyOf(r).glossary_id);
    expect(sent).toEqual(['up-1', 'up-1']);
    expect(up.glossaries.get('up-1')?.entries).toEqual(new Map([['lamp', 'Leuchte']]));

    await client(h, secret).updateMultilingualGlossaryDictionary(g.glossaryId, {
      sourceLangCode: 'en',
      targetLangCode: 'de',
      entries: entries({ lamp: 'Lampe' }),
    });
    expect((await t.translateText('the lamp', 'en', 'de', { glossary: g.glossaryId })).text).toBe(
      'THE Lampe',
    );
    await expect.poll(() => [...up.glossaries.keys()]).toEqual(['up-2']);
    await client(h, secret).deleteMultilingualGlossary(g.glossaryId);
    await expect.poll(() => up.glossaries.size).toBe(0);
  });

  it('DeepL: copies left by an earlier run are deleted at start; a copy deleted upstream is made again', async () => {
    const up = await fake(fakeDeepl('k'));
    up.glossaries.set('old', { name: 'hearth-mirror 0123', source: 'en', target: 'de', entries: new Map() });
    up.glossaries.set('theirs', { name: 'their own', source: 'en', target: 'de', entries: new Map() });
    const h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'k' }] });
    await expect.poll(() => [...up.glossaries.keys()]).toEqual(['theirs']);
    const { secret } = await h.createKey();
    const g = await withGlossary(h, secret);
    const t = h.translator(secret);
    await t.translateText('the lamp', 'en', 'de', { glossary: g.glossaryId });
    up.glossaries.clear();
    expect((await t.translateText('one lamp', 'en', 'de', { glossary: g.glossaryId })).text).toBe(
      'ONE Leuchte',
    );
  });

  it('LibreTranslate: each term travels as a placeholder in HTML mode and comes back as the target term', async () => {
    const up = await fake(fakeLibre());
    const h = await hub({ engines: [{ type: 'libretranslate', url: up.url }] });
    const { secret } = await h.createKey();
    const g = await withGlossary(h, secret, 'de', { lamp: 'Leuchte', 'hall light': 'Flurlicht' });
    const t = h.translator(secret);
    const out = await t.translateText(['Turn the Hall Light & the lamp on', 'no terms'], 'en', 'de', {
      glossary: g.glossaryId,
    });
    expect(out.map((r) => r.text)).toEqual(['TURN THE Flurlicht & THE Leuchte ON', 'NO TERMS']);
    const body = bodyOf(up.calls('/translate')[0] as never);
    expect(body.format).toBe('html');
    expect(body.q).toEqual(['Turn the <g id="0"></g> &amp; the <g id="1"></g> on', 'no terms']);
    // The same text without the glossary is another cache entry.
    expect((await t.translateText('the lamp', 'en', 'de')).text).toBe('THE LAMP');
  });

  it('LLM: the pairs go into the prompt and the answer must use them, else the next engine is tried', async () => {
    const obeying = await fake(fakeOpenAi());
    const h = await hub({ engines: [{ type: 'openai', url: `${obeying.url}/v1`, model: 'm' }] });
    const { secret } = await h.createKey();
    const g = await withGlossary(h, secret, 'en', { Lampe: 'luminaire' }, 'de');
    // A dictionary to EN serves EN-US and EN-GB.
    for (const target of ['en-US', 'en-GB'] as const) {
      const out = await h
        .translator(secret)
        .translateText('die Lampe', 'de', target, { glossary: g.glossaryId });
      expect(out.text).toBe('DIE luminaire');
    }
    const system = bodyOf(obeying.calls('/v1/chat/completions')[0] as never) as {
      messages: Array<{ role: string; content: string }>;
    };
    expect(system.messages[0]?.content).toContain('"Lampe" → "luminaire"');

    const ignoring = await fake(fakeOpenAi({ ignoreGlossary: true }));
    const libre = await fake(fakeLibre());
    const h2 = await hub({
      engines: [
        { type: 'openai', url: `${ignoring.url}/v1`, model: 'm' },
        { type: 'libretranslate', url: libre.url },
      ],
    });
    const k2 = await h2.createKey();
    const g2 = await withGlossary(h2, k2.secret, 'de', { lamp: 'Leuchte' });
    const out = await h2
      .translator(k2.secret)
      .translateText('the lamp', 'en', 'de', { glossary: g2.glossaryId });
    expect(out.text).toBe('THE Leuchte');
    expect(ignoring.calls('/v1/chat/completions')).toHaveLength(1);
    expect(
      h2.t.logs.some((l) => String(l.err ?? '').includes("did not use the glossary term 'Leuchte'")),
    ).toBe(true);
  });

  it('refuses an unknown glossary (404), a glossary without the pair (400) and more than 5 glossary_ids (400)', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const g = await withGlossary(h, secret);
    const t = h.translator(secret);
    await expect(t.translateText('x', 'en', 'de', { glossary: 'nope' })).rejects.toThrow(/Not found/);
    await expect(t.translateText('x', 'en', 'fr', { glossary: g.glossaryId })).rejects.toThrow(
      /no dictionary/,
    );
    const six = Array.from({ length: 6 }, () => g.glossaryId).join(',');
    const res = await h.call('POST', '/v2/translate', {
      key: secret,
      form: `text=x&source_lang=en&target_lang=de&glossary_ids=${six}`,
    });
    expect([res.status, res.body.message]).toEqual([400, expect.stringContaining('at most 5')]);
    // Several glossaries: the first that defines a term wins.
    const second = await withGlossary(h, secret, 'de', { lamp: 'Lampe', door: 'Tür' });
    const out = await h.call('POST', '/v2/translate', {
      key: secret,
      json: {
        text: ['lamp door'],
        source_lang: 'en',
        target_lang: 'de',
        glossary_ids: [g.glossaryId, second.glossaryId],
      },
    });
    expect(out.body.translations[0].text).toBe('Leuchte Tür');
  });
});
