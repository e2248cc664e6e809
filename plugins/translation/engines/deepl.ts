import type { AbortLike } from '../cancellation.ts';
import { resolveSource, resolveTarget } from '../languages.ts';
import { DeeplMirror, GLOSSARY_COPIES, STYLE_COPIES } from './deepl-mirror.ts';
import { clip, jsonBody, UpstreamClient, type UpstreamResponse } from './http-client.ts';
import { allPairs, deeplDefaultSupport, LanguageCache } from './language-support.ts';
import {
  type Engine,
  type EngineConfig,
  type EngineJob,
  type EngineResult,
  type ImproveJob,
  type Improvement,
  type LanguageSupport,
  UpstreamError,
} from './types.ts';

/** docs/translation.md#transport-and-authentication: Free keys end in `:fx` and use the Free host. */
export const deeplHost = (apiKey: string): string =>
  apiKey.endsWith(':fx') ? 'https://api-free.deepl.com' : 'https://api.deepl.com';

/** The real DeepL API as an upstream: every parameter passes through, tags are handled natively. */
export function createDeeplEngine(config: EngineConfig): Engine {
  const client = new UpstreamClient(config.url || deeplHost(config.apiKey), config.timeoutMs);
  const headers = { authorization: `DeepL-Auth-Key ${config.apiKey}` };
  const scrub = (text: unknown) => clip(text, config.apiKey);

  function failure(res: UpstreamResponse): UpstreamError {
    let message = '';
    try {
      message = scrub((JSON.parse(res.body) as { message?: unknown }).message);
    } catch {}
    // docs/translation.md#deepl-upstream: DeepL's X-Trace-ID identifies the call when asking DeepL support.
    const trace = res.headers['x-trace-id'];
    const said =
      (message ? `: ${message}` : '') + (typeof trace === 'string' ? ` (DeepL trace ${trace})` : '');
    // docs/translation.md#errors-and-client-retries: 456 is the quota; 403 means our upstream key was refused.
    if (res.status === 456) return new UpstreamError('quota', `DeepL quota exceeded${said}`);
    if (res.status === 403) return new UpstreamError('quota', 'DeepL refused the configured upstream key');
    if (res.status === 429 || res.status === 529)
      return new UpstreamError('transient', `DeepL is busy${said}`, 429);
    if (res.status >= 500) return new UpstreamError('transient', `DeepL answered ${res.status}${said}`);
    if (res.status === 400 && /target_lang|source_lang/.test(message)) {
      return new UpstreamError('unsupported', `DeepL${said}`);
    }
    return new UpstreamError('rejected', `DeepL rejected the request${said}`);
  }

  async function loadLanguages(): Promise<LanguageSupport> {
    const list = async (type: 'source' | 'target') => {
      const res = await client.request('GET', `/v2/languages?type=${type}`, { headers });
      if (res.status !== 200) throw failure(res);
      return jsonBody(res, 'DeepL') as Array<{ language: string; supports_formality?: boolean }>;
    };
    const [sources, targets] = await Promise.all([list('source'), list('target')]);
    const sourceCodes = sources.map((l) => resolveSource(l.language)).filter((c): c is string => c !== null);
    const targetCodes = targets.map((l) => resolveTarget(l.language)).filter((c): c is string => c !== null);
    const formal = targets.filter((l) => l.supports_formality).map((l) => l.language.toUpperCase());
    return allPairs(sourceCodes, targetCodes, formal);
  }
  const languages = new LanguageCache(loadLanguages, deeplDefaultSupport);
  const mirror = new DeeplMirror(GLOSSARY_COPIES, client, headers, failure);
  const styles = new DeeplMirror(STYLE_COPIES, client, headers, failure);

  async function send(job: EngineJob, signal: AbortLike, retried = false): Promise<UpstreamResponse> {
    const body = deeplBody(job);
    if (job.glossary) body.glossary_id = await mirror.idFor(job.glossary);
    if (job.style) body.style_id = await styles.idFor(job.style);
    const res = await client.request('POST', '/v2/translate', { headers, json: body, signal });
    // A copy was deleted in the DeepL account meanwhile: make it again, once.
    if (res.status === 404 && (job.glossary || job.style) && !retried) {
      if (job.glossary) mirror.lost(job.glossary.digest);
      if (job.style) styles.lost(job.style.digest);
      return send(job, signal, true);
    }
    return res;
  }

  return {
    id: config.id,
    type: 'deepl',
    timeoutMs: config.timeoutMs,
    capabilities: {
      tags: true,
      formality: true,
      customInstructions: true,
      qualityModel: true,
      glossary: 'native',
      styleRules: 'native',
    },
    languages: (opts) => (opts?.maxWaitMs === undefined ? languages.get() : languages.within(opts.maxWaitMs)),
    async translate(job: EngineJob, signal: AbortLike): Promise<EngineResult> {
      const res = await send(job, signal);
      if (res.status !== 200) throw failure(res);
      const body = jsonBody(res, 'DeepL') as {
        translations?: Array<{
          text?: unknown;
          detected_source_language?: unknown;
          model_type_used?: unknown;
        }>;
      };
      const list = body.translations;
      if (
        !Array.isArray(list) ||
        list.length !== job.texts.length ||
        list.some((t) => typeof t.text !== 'string')
      ) {
        throw new UpstreamError('invalid_response', 'DeepL answered with a malformed translation list');
      }
      return {
        translations: list.map((t) => ({
          text: t.text as string,
          detectedSource:
            typeof t.detected_source_language === 'string' ? t.detected_source_language.toUpperCase() : null,
        })),
        modelTypeUsed: (list[0]?.model_type_used as EngineResult['modelTypeUsed']) ?? null,
      };
    },
    async improve(job: ImproveJob, signal: AbortLike): Promise<Improvement[]> {
      const body: Record<string, unknown> = { text: job.texts };
      if (job.target) body.target_lang = job.target;
      if (job.writingStyle) body.writing_style = job.writingStyle;
      if (job.tone) body.tone = job.tone;
      const res = await client.request('POST', `/v2/write/${job.kind}`, { headers, json: body, signal });
      if (res.status !== 200) throw failure(res);
      const list = (jsonBody(res, 'DeepL') as { improvements?: unknown }).improvements;
      if (!Array.isArray(list) || list.some((t) => typeof (t as { text?: unknown })?.text !== 'string')) {
        throw new UpstreamError('invalid_response', 'DeepL answered with a malformed improvement list');
      }
      return (list as Array<{ text: string; detected_source_language?: unknown }>).map((t) => ({
        text: t.text,
        detectedSource:
          typeof t.detected_source_language === 'string' ? t.detected_source_language.toLowerCase() : null,
      }));
    },
    glossaryChanged: (ref) => mirror.changed(ref),
    styleChanged: (ref) => styles.changed(ref),
    cleanupGlossaries: async () => {
      await Promise.all([mirror.cleanup(), styles.cleanup()]);
    },
    close: () => client.close(),
  };
}

/** The JSON body DeepL expects; only parameters that were sent are forwarded. */
function deeplBody(job: EngineJob): Record<string, unknown> {
  const body: Record<string, unknown> = { text: job.texts, target_lang: job.target };
  if (job.source) body.source_lang = job.source;
  if (job.formality) body.formality = job.formality;
  if (job.context) body.context = job.context;
  if (job.modelType) body.model_type = job.modelType;
  if (job.splitSentences) body.split_sentences = job.splitSentences;
  if (job.preserveFormatting) body.preserve_formatting = true;
  if (job.customInstructions.length > 0) body.custom_instructions = job.customInstructions;
  if (job.tags) {
    body.tag_handling = job.tags.mode;
    body.tag_handling_version = job.tags.version;
    body.outline_detection = job.tags.outlineDetection;
    if (job.tags.splittingTags.length) body.splitting_tags = job.tags.splittingTags;
    if (job.tags.nonSplittingTags.length) body.non_splitting_tags = job.tags.nonSplittingTags;
    if (job.tags.ignoreTags.length) body.ignore_tags = job.tags.ignoreTags;
  }
  return body;
}
