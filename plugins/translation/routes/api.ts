import type { HearthRouter } from '../../../core/sdk.ts';
import type { UsageLedger } from '../accounting/usage-ledger.ts';
import type { EngineChain } from '../engines/chain.ts';
import { invalid, notSupported } from '../errors.ts';
import { FORMALITY_TARGETS, languageName, rootOf } from '../languages.ts';
import { queryAndBodyParams, requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import { parseTranslateRequest } from '../request/translate-params.ts';
import type { Account, TranslateService } from '../translate-service.ts';
import type { ApiRequest } from './client-auth.ts';
import { clientGone } from './client-gone.ts';

/** docs/translation.md#transport-and-authentication: the optional `X-DeepL-Reporting-Tag` header, at most 100 characters. */
export function reportingTag(value: string): string {
  if ([...value].length > 100)
    throw invalid("Value for 'X-DeepL-Reporting-Tag' not supported (at most 100 characters).");
  return value;
}

/** What DeepL Pro reports for "no limit" (docs/translation.md#usage). */
const UNLIMITED = 1_000_000_000_000;

export interface ApiDeps {
  authenticate(req: ApiRequest): Promise<Account>;
  service: TranslateService;
  chain: EngineChain | null;
  ledger: UsageLedger;
  /** Document counts and limits for `/v2/usage` (only the limits that are set). */
  documentUsage?(account: string): Record<string, number>;
}

/** The parts of a request that authenticate it (a DPoP proof is made for the method and URL). */
export const apiRequest = (ctx: {
  get(name: string): string;
  headers: Record<string, string | string[] | undefined>;
  method: string;
  path: string;
}): ApiRequest => ({
  authorization: ctx.get('authorization') || undefined,
  dpop: ctx.headers.dpop,
  method: ctx.method,
  path: ctx.path,
});

/** `POST /v2/translate`, `GET /v2/usage`, `GET /v2/languages`, `GET /v3/languages`. */
export function mountApi(router: HearthRouter, deps: ApiDeps): void {
  router.post('/v2/translate', async (ctx) => {
    const account = await deps.authenticate(apiRequest(ctx));
    const req = parseTranslateRequest(await requestParams(ctx.req));
    const tag = reportingTag(ctx.get('x-deepl-reporting-tag'));
    ctx.body = { translations: await deps.service.translate(req, account, tag, clientGone(ctx.res)) };
  });

  const usage = async (ctx: Parameters<Parameters<HearthRouter['get']>[1]>[0]) => {
    const account = await deps.authenticate(apiRequest(ctx));
    const now = new Date();
    const used = deps.ledger.used(account.id, now);
    const limit = account.limit ?? UNLIMITED;
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    ctx.body = {
      character_count: used,
      character_limit: limit,
      api_key_character_count: used,
      api_key_character_limit: limit,
      start_time: start.toISOString(),
      end_time: end.toISOString(),
      ...deps.documentUsage?.(account.id),
    };
  };
  router.get('/v2/usage', usage);
  router.post('/v2/usage', usage);

  const languages = async (ctx: Parameters<Parameters<HearthRouter['get']>[1]>[0]) => {
    await deps.authenticate(apiRequest(ctx));
    const params = new ParamReader(await queryAndBodyParams(ctx.req, ctx.querystring));
    const type = params.string('type') ?? 'source';
    if (type !== 'source' && type !== 'target') throw notSupported('type');
    const summary = await summarize(deps.chain);
    ctx.body =
      type === 'source'
        ? [...summary.sources].sort().map((code) => ({ language: code, name: languageName(code) }))
        : [...summary.targets].sort().map((code) => ({
            language: code,
            name: languageName(code),
            supports_formality: summary.formality.has(code),
          }));
  };
  router.get('/v2/languages', languages);
  router.post('/v2/languages', languages);

  // docs/translation.md#languages: the v3 list; only the translate_text resource exists in part 1.
  router.get('/v3/languages', async (ctx) => {
    await deps.authenticate(apiRequest(ctx));
    const params = new ParamReader(await queryAndBodyParams(ctx.req, ctx.querystring));
    const resource = params.string('resource') ?? 'translate_text';
    if (resource !== 'translate_text') throw notSupported('resource');
    const summary = await summarize(deps.chain);
    const codes = new Set([...summary.sources, ...summary.targets]);
    ctx.body = [...codes].sort().map((code) => ({
      lang: code.toLowerCase().replace(/-(hans|hant)$/, (m) => m.replace('h', 'H')),
      name: languageName(code),
      usable_as_source: summary.sources.has(code),
      usable_as_target: summary.targets.has(code),
      status: 'stable',
      features: {
        ...(summary.formality.has(code) ? { formality: { status: 'stable' } } : {}),
        tag_handling: { status: 'stable' },
      },
    }));
  });
}

/** The union of what the configured engines serve. */
export async function summarize(chain: EngineChain | null) {
  const sources = new Set<string>();
  const targets = new Set<string>();
  const formality = new Set<string>();
  for (const engine of chain?.engines ?? []) {
    const support = await engine.languages();
    for (const s of support.sources) sources.add(s);
    for (const t of support.targets) {
      targets.add(t);
      // The request validation follows DeepL's formality list, so only those targets can claim it.
      if (engine.capabilities.formality && support.formality.has(t) && FORMALITY_TARGETS.has(t))
        formality.add(t);
    }
  }
  return { sources, targets, formality };
}

/** Pairs of root languages the engines can translate between: the pairs a glossary can be made for. */
export async function glossaryPairs(chain: EngineChain | null) {
  const { sources, targets } = await summarize(chain);
  const roots = (codes: Set<string>) => [...new Set([...codes].map((c) => rootOf(c).toLowerCase()))].sort();
  const pairs: Array<{ source_lang: string; target_lang: string }> = [];
  for (const s of roots(sources)) {
    for (const t of roots(targets)) if (s !== t) pairs.push({ source_lang: s, target_lang: t });
  }
  return pairs;
}
