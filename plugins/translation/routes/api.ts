import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
export const apiRequest = (ctx: { req: IncomingMessage; path: string }): ApiRequest => ({
  authorization: ctx.req.headers.authorization || undefined,
  dpop: ctx.req.headers.dpop,
  method: ctx.req.method ?? 'GET',
  path: ctx.path,
});

/** The translation API's error body: DeepL's `{ message }` (docs/translation.md#errors-and-client-retries). */
export const errorBody = ({ message }: { message: string }) => ({ message });

/** spec: successful and 400 responses carry X-Trace-ID (set first so error responses keep it). */
export const setTraceId = (res: ServerResponse) =>
  res.setHeader('X-Trace-ID', randomUUID().replaceAll('-', ''));

/**
 * `POST /v2/translate` on node's own request and response: the one handler of the Koa route (cased or
 * slashed variants of the path) and of the direct route the listener answers ahead of Koa (the exact path;
 * the figure the proxy's latency budget is about). Returns the JSON body of the 200 answer.
 */
export function translateHandler(deps: Pick<ApiDeps, 'authenticate' | 'service'>) {
  return async (request: { req: IncomingMessage; res: ServerResponse; path: string }) => {
    const account = await deps.authenticate(apiRequest(request));
    const req = parseTranslateRequest(await requestParams(request.req));
    const tag = reportingTag(headerText(request.req.headers['x-deepl-reporting-tag']));
    return { translations: await deps.service.translate(req, account, tag, clientGone(request.res)) };
  };
}

/** A header's value as Koa's `ctx.get` gives it: '' when absent. */
const headerText = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? value.join(', ') : (value ?? '');

/** `POST /v2/translate`, `GET /v2/usage`, `GET /v2/languages`, `GET /v3/languages`. */
export function mountApi(router: HearthRouter, deps: ApiDeps): void {
  const translate = translateHandler(deps);
  router.post('/v2/translate', async (ctx) => {
    ctx.body = await translate(ctx);
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
