import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { invalid, notFoundError } from '../errors.ts';
import { queryAndBodyParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import { apiRequest } from '../routes/api.ts';
import type { ApiRequest } from '../routes/client-auth.ts';
import type { Account } from '../translate-service.ts';
import { toTsv } from './entries.ts';
import { dictionariesFrom, dictionaryFrom, glossaryLanguage, glossaryName } from './params.ts';
import {
  dictionaryInfo,
  type GlossaryStore,
  glossaryInfo,
  mergeEntries,
  type StoredDictionary,
  type StoredGlossary,
} from './store.ts';

/** A 10 MiB glossary percent-encoded in a form can triple in size. */
const GLOSSARY_BODY_BYTES = 32 * 1024 * 1024;

export interface GlossaryDeps {
  authenticate(req: ApiRequest): Promise<Account>;
  glossaries: GlossaryStore;
  /** Language pairs a glossary can be made for (`/v2/glossary-language-pairs`). */
  pairs(): Promise<Array<{ source_lang: string; target_lang: string }>>;
}

type Ctx = Parameters<Parameters<HearthRouter['get']>[1]>[0];

const params = async (ctx: Ctx) => queryAndBodyParams(ctx.req, ctx.querystring, GLOSSARY_BODY_BYTES);

/** A v2 glossary is one dictionary; a multilingual glossary is not visible to the v2 endpoints. */
function v2Info(g: StoredGlossary) {
  const d = g.dictionaries[0] as StoredDictionary;
  return {
    glossary_id: g.glossary_id,
    name: g.name,
    ready: true,
    source_lang: d.source_lang,
    target_lang: d.target_lang,
    creation_time: g.creation_time,
    entry_count: d.entries.length,
  };
}

const isV2 = (g: StoredGlossary) => g.dictionaries.length === 1;

/** The pair named by `source_lang` and `target_lang` (both or neither). */
function pairOf(p: ParamReader): { source: string; target: string } | null {
  const s = p.string('source_lang');
  const t = p.string('target_lang');
  if (s === undefined && t === undefined) return null;
  return { source: glossaryLanguage(s, 'source_lang'), target: glossaryLanguage(t, 'target_lang') };
}

/** v3 multilingual glossaries and the v2 single-pair endpoints, over one store per account. */
export function mountGlossaries(router: HearthRouter, deps: GlossaryDeps): void {
  const who = async (ctx: Ctx) => (await deps.authenticate(apiRequest(ctx))).id;

  router.post('/v3/glossaries', async (ctx) => {
    const account = await who(ctx);
    const raw = await params(ctx);
    const name = glossaryName(new ParamReader(raw), true) as string;
    const dictionaries = dictionariesFrom(raw);
    if (!dictionaries || dictionaries.length === 0) throw invalid("Parameter 'dictionaries' not specified.");
    ctx.status = 201;
    ctx.body = glossaryInfo(await deps.glossaries.create(account, name, dictionaries));
  });

  router.get('/v3/glossaries', async (ctx) => {
    const account = await who(ctx);
    ctx.body = { glossaries: (await deps.glossaries.list(account)).map(glossaryInfo) };
  });

  router.get('/v3/glossaries/:id', async (ctx) => {
    ctx.body = glossaryInfo(await deps.glossaries.get(await who(ctx), ctx.params.id as string));
  });

  // PATCH merges: a new name and/or one dictionary whose entries are added (a source term present takes the new target).
  router.patch('/v3/glossaries/:id', async (ctx) => {
    const account = await who(ctx);
    const raw = await params(ctx);
    const name = glossaryName(new ParamReader(raw), false);
    const dictionaries = dictionariesFrom(raw) ?? [];
    if (dictionaries.length > 1) throw invalid('PATCH takes at most one dictionary.');
    if (name === undefined && dictionaries.length === 0) {
      throw invalid("Parameter 'name' or 'dictionaries' not specified.");
    }
    const updated = await deps.glossaries.change(account, ctx.params.id as string, (g) => {
      if (name !== undefined) g.name = name;
      for (const added of dictionaries) {
        const found = g.dictionaries.find(
          (d) => d.source_lang === added.source_lang && d.target_lang === added.target_lang,
        );
        if (found) mergeEntries(found, new Map(added.entries));
        else g.dictionaries.push(added);
      }
    });
    ctx.body = glossaryInfo(updated);
  });

  router.delete('/v3/glossaries/:id', async (ctx) => {
    await deps.glossaries.delete(await who(ctx), ctx.params.id as string);
    ctx.status = 204;
  });

  router.get('/v3/glossaries/:id/entries', async (ctx) => {
    const account = await who(ctx);
    const glossary = await deps.glossaries.get(account, ctx.params.id as string);
    const pair = pairOf(new ParamReader(await params(ctx)));
    const chosen = pair
      ? glossary.dictionaries.filter((d) => d.source_lang === pair.source && d.target_lang === pair.target)
      : glossary.dictionaries;
    if (pair && chosen.length === 0) throw notFoundError('Glossary dictionary not found.');
    ctx.body = {
      dictionaries: chosen.map((d) => ({
        source_lang: d.source_lang,
        target_lang: d.target_lang,
        entries: toTsv(d.entries),
        entries_format: 'tsv',
      })),
    };
  });

  router.put('/v3/glossaries/:id/dictionaries', async (ctx) => {
    const account = await who(ctx);
    const dictionary = dictionaryFrom(new ParamReader(await params(ctx)));
    await deps.glossaries.change(account, ctx.params.id as string, (g) => {
      const at = g.dictionaries.findIndex(
        (d) => d.source_lang === dictionary.source_lang && d.target_lang === dictionary.target_lang,
      );
      if (at >= 0) g.dictionaries[at] = dictionary;
      else g.dictionaries.push(dictionary);
    });
    ctx.body = dictionaryInfo(dictionary);
  });

  router.delete('/v3/glossaries/:id/dictionaries', async (ctx) => {
    const account = await who(ctx);
    const pair = pairOf(new ParamReader(await params(ctx)));
    if (!pair) throw invalid("Parameters 'source_lang' and 'target_lang' not specified.");
    const id = ctx.params.id as string;
    const glossary = await deps.glossaries.get(account, id);
    const has = glossary.dictionaries.some(
      (d) => d.source_lang === pair.source && d.target_lang === pair.target,
    );
    if (!has) throw notFoundError('Glossary dictionary not found.');
    await deps.glossaries.change(account, id, (g) => {
      g.dictionaries = g.dictionaries.filter(
        (d) => !(d.source_lang === pair.source && d.target_lang === pair.target),
      );
    });
    ctx.status = 204;
  });

  // v2 (legacy): one language pair per glossary.
  router.post('/v2/glossaries', async (ctx) => {
    const account = await who(ctx);
    const p = new ParamReader(await params(ctx));
    const name = glossaryName(p, true) as string;
    const dictionary = dictionaryFrom(p);
    if (dictionary.entries.length === 0) throw invalid('Invalid glossary entries: no entries.');
    ctx.status = 201;
    ctx.body = v2Info(await deps.glossaries.create(account, name, [dictionary]));
  });

  router.get('/v2/glossaries', async (ctx) => {
    const account = await who(ctx);
    ctx.body = { glossaries: (await deps.glossaries.list(account)).filter(isV2).map(v2Info) };
  });

  const v2Glossary = async (ctx: Ctx) => {
    const glossary = await deps.glossaries.get(await who(ctx), ctx.params.id as string);
    if (!isV2(glossary)) throw notFoundError(`Glossary '${glossary.glossary_id}' not found.`);
    return glossary;
  };

  router.get('/v2/glossaries/:id', async (ctx) => {
    ctx.body = v2Info(await v2Glossary(ctx));
  });

  router.delete('/v2/glossaries/:id', async (ctx) => {
    const glossary = await v2Glossary(ctx);
    await deps.glossaries.delete(await who(ctx), glossary.glossary_id);
    ctx.status = 204;
  });

  // The entries as raw TSV; DeepL answers 415 to an Accept that rules TSV out.
  router.get('/v2/glossaries/:id/entries', async (ctx) => {
    const glossary = await v2Glossary(ctx);
    const accept = ctx.get('accept');
    if (accept && !/text\/tab-separated-values|text\/\*|\*\/\*/.test(accept)) {
      throw new HttpError(
        415,
        'unsupported_media_type',
        'The entries are served as text/tab-separated-values.',
      );
    }
    ctx.type = 'text/tab-separated-values; charset=utf-8';
    ctx.body = toTsv((glossary.dictionaries[0] as StoredDictionary).entries);
  });

  router.get('/v2/glossary-language-pairs', async (ctx) => {
    await who(ctx);
    ctx.body = { supported_languages: await deps.pairs() };
  });
}
