import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import type {} from '../console/types.ts';
import { DeveloperKeys, maskKey } from './accounting/developer-keys.ts';
import { UsageLedger } from './accounting/usage-ledger.ts';
import { TranslationCache } from './cache.ts';
import { configSchema, engineConfigs, type TranslationConfig } from './config.ts';
import { mountDocuments } from './documents/routes.ts';
import { DocumentRunner } from './documents/runner.ts';
import { DocumentStore } from './documents/store.ts';
import { DeeplDocuments } from './documents/upstream.ts';
import { EngineChain } from './engines/chain.ts';
import { createEngine } from './engines/index.ts';
import { mountGlossaries } from './glossaries/routes.ts';
import { GlossaryStore } from './glossaries/store.ts';
import { mountMemories } from './memories/routes.ts';
import { MemoryStore } from './memories/store.ts';
import { mountAdmin } from './routes/admin.ts';
import { mountAnnounce } from './routes/announce.ts';
import { errorBody, glossaryPairs, mountApi, setTraceId, translateHandler } from './routes/api.ts';
import { clientAuthenticator } from './routes/client-auth.ts';
import { mountFallback } from './routes/fallback.ts';
import { mountStyleRules } from './style-rules/routes.ts';
import { StyleRuleStore } from './style-rules/store.ts';
import { NO_ENGINE_MESSAGE, TranslateService } from './translate-service.ts';
import { mountWrite } from './write/routes.ts';

export default definePlugin<TranslationConfig, Record<string, never>>({
  name: 'translation',
  version: '0.1.0',
  description:
    'DeepL-compatible text translation API over upstream engines, with developer keys, limits and analytics.',
  optional: ['lighting', 'auth', 'console'],
  configSchema,
  async start(ctx) {
    const configs = engineConfigs(ctx.config.engines);
    for (const c of configs) if (c.apiKey) ctx.redact.value(c.apiKey);
    const invalidEngine = configs.find((c) => c.type === 'openai' && !c.model);
    if (invalidEngine) throw new Error(`engine "${invalidEngine.id}" (openai) needs a "model"`);
    if (configs.some((c) => c.type === 'deepl' && !c.apiKey))
      throw new Error('a deepl engine needs an "apiKey"');

    const ids = new Set(configs.map((c) => c.id));
    if (ids.size !== configs.length) throw new Error('engine ids must be unique');
    const unknown = ctx.config.routes.flatMap((r) => r.engines).find((id) => !ids.has(id));
    if (unknown !== undefined) throw new Error(`a route names engine "${unknown}", which is not configured`);

    const keys = await DeveloperKeys.open(ctx.store);
    const ledger = await UsageLedger.open(ctx.store);
    const attempts = ctx.metrics.counter('engine_attempts', 'Engine calls by engine and outcome');
    const observe = (engine: string, outcome: string) => attempts.inc({ engine, outcome });
    const chain =
      configs.length > 0
        ? new EngineChain(
            configs.map(createEngine),
            ctx.config.routes,
            ctx.config.circuitBreaker,
            ctx.log,
            observe,
          )
        : null;
    // Warm the language lists now (not awaited: an unreachable upstream must not hold the start up).
    for (const engine of chain?.engines ?? []) {
      void engine.languages();
      void engine.cleanupGlossaries?.().catch(() => {});
    }
    const cache = new TranslationCache(
      ctx.config.cache.maxEntries,
      ctx.config.cache.ttlMs,
      ctx.config.cache.maxBytes,
    );
    const glossaries = new GlossaryStore(ctx.store);
    // A changed or deleted glossary retires the upstream copies made from it.
    glossaries.onChange((account, id) => {
      for (const engine of chain?.engines ?? []) engine.glossaryChanged?.(`${account}\t${id}`);
    });
    const memories = await MemoryStore.open(ctx.store);
    const styleRules = await StyleRuleStore.open(ctx.store);
    // A changed or deleted style rule list retires the upstream copies made from it.
    styleRules.onChange((account, id) => {
      for (const engine of chain?.engines ?? []) engine.styleChanged?.(`${account}\t${id}`);
    });
    const service = new TranslateService(chain, cache, ledger, ctx.signal, glossaries, memories, styleRules);
    // A notice is logged by the core; logging it here too would say it twice.
    if (!chain) ctx.notices.set('no-engine', NO_ENGINE_MESSAGE);
    ctx.metrics.counterOf('cache_hits', 'Translations answered from the cache', () => cache.hits);
    ctx.metrics.gauge('cache_entries', 'Translations held in the cache', () => cache.size);

    const router = ctx.http.router('main', { body: false, errorBody });
    router.use(async (c, next) => {
      setTraceId(c.res);
      await next();
    });
    const authenticate = clientAuthenticator(
      keys,
      () => ctx.tryUse('auth'),
      () => ctx.http.origins('main'),
    );
    const docSettings = ctx.config.documents;
    const documents = await DocumentStore.open(ctx.store);
    await documents.sweep();
    // Formats only DeepL translates go to the first DeepL upstream, when there is one.
    const deeplEngine = configs.find((c) => c.type === 'deepl');
    const upstreamDocuments = deeplEngine ? new DeeplDocuments(deeplEngine, documents, ctx.secrets) : null;
    const runner = new DocumentRunner(documents, service, ledger, docSettings, ctx.log, upstreamDocuments);
    const documentUsage = (account: string): Record<string, number> => ({
      ...(docSettings.monthlyLimit > 0
        ? { document_count: documents.count(account), document_limit: docSettings.monthlyLimit }
        : {}),
      ...(docSettings.teamMonthlyLimit > 0
        ? { team_document_count: documents.count(null), team_document_limit: docSettings.teamMonthlyLimit }
        : {}),
    });
    mountApi(router, { authenticate, service, chain, ledger, documentUsage });
    // The exact `POST /v2/translate` skips the Koa stack: its latency budget is a fraction of a millisecond.
    const translate = translateHandler({ authenticate, service });
    ctx.http.direct('main', {
      method: 'POST',
      path: '/v2/translate',
      errorBody,
      handle: (request) => {
        setTraceId(request.res);
        return translate(request);
      },
    });
    mountDocuments(router, {
      authenticate,
      store: documents,
      runner,
      ledger,
      settings: docSettings,
      upstream: upstreamDocuments !== null,
      resources: (req, account) => service.resources(req, account),
    });
    await runner.resume();
    const pruneTimer = setInterval(() => void documents.prune(docSettings.retentionMs), 3_600_000);
    pruneTimer.unref();
    void documents.prune(docSettings.retentionMs);
    mountGlossaries(router, { authenticate, glossaries, pairs: () => glossaryPairs(chain) });
    mountMemories(router, { authenticate, memories });
    mountStyleRules(router, { authenticate, styleRules });
    mountWrite(router, { authenticate, chain, ledger });
    ctx.tryUse('console')?.addPage({
      plugin: 'translation',
      id: 'translation-keys',
      title: 'Translation keys',
      module: fileURLToPath(new URL('./console/keys.js', import.meta.url)),
      order: 40,
      api: { listener: 'main', prefix: '/v2/admin', scheme: 'DeepL-Auth-Key' },
    });
    mountAdmin(router, {
      adminKey: ctx.adminKey,
      keys,
      ledger,
      pageSize: ctx.config.analyticsPageSize,
      who: (account) => {
        const [kind, id = ''] = account.split(/:(.*)/s);
        const key = kind === 'key' ? keys.get(id) : undefined;
        if (key) return { apiKey: key.masked, label: key.label };
        return { apiKey: maskKey(account), label: kind === 'site' ? `site ${id}` : `site token (${id})` };
      },
    });
    ctx.redact.path(/\/api\/site\/([^/?#]+)\/announce/);
    // The legacy `auth_key` query parameter (docs/translation.md#transport-and-authentication) is refused (403), but its key must not reach the
    // request log either; the core's own pattern covers `key=`, not `auth_key=`.
    ctx.redact.path(/[?&]auth_key=([^&#\s"]+)/);
    mountAnnounce(router, { service, mqtt: ctx.mqtt, lighting: () => ctx.tryUse('lighting') });
    mountFallback(router); // last: unmatched /v2 and /v3 requests keep X-Trace-ID

    return {
      exports: {},
      health() {
        if (!chain) return { status: 'degraded', detail: NO_ENGINE_MESSAGE };
        const open = chain.engines.filter((e) => chain.breakerState(e.id) === 'open').map((e) => e.id);
        if (open.length === chain.engines.length) {
          return { status: 'degraded', detail: `every translation engine is failing (${open.join(', ')})` };
        }
        return { status: 'ok' };
      },
      async stop() {
        clearInterval(pruneTimer);
        await runner.stop();
        chain?.close();
        await Promise.all([
          ledger.flush(),
          glossaries.flush(),
          memories.flush(),
          documents.flush(),
          styleRules.flush(),
        ]);
      },
    };
  },
});
