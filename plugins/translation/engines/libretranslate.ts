import type { AbortLike } from '../cancellation.ts';
import { resolveSource, rootOf, TARGET_LANGUAGES } from '../languages.ts';
import { clip, jsonBody, UpstreamClient, type UpstreamResponse } from './http-client.ts';
import { LanguageCache, ROUTING_WAIT_MS } from './language-support.ts';
import {
  type Engine,
  type EngineConfig,
  type EngineJob,
  type EngineResult,
  type LanguageSupport,
  UpstreamError,
} from './types.ts';

/** LibreTranslate codes that are not simply the lower-cased DeepL root (docs/translation.md#libretranslate; LT uses `zt`). */
const LT_TO_DEEPL = new Map<string, string[]>([
  ['zt', ['ZH-HANT']],
  ['zh-hant', ['ZH-HANT']],
  ['zh-hans', ['ZH', 'ZH-HANS']],
  ['zh', ['ZH', 'ZH-HANS']],
  ['pt-br', ['PT-BR']],
  ['pb', ['PT-BR']],
  ['en', ['EN', 'EN-GB', 'EN-US']],
  ['pt', ['PT', 'PT-PT', 'PT-BR']],
  ['es', ['ES', 'ES-419']],
]);

/** DeepL codes an LT code stands for. */
function deeplCodes(ltCode: string): string[] {
  const lower = ltCode.toLowerCase();
  return LT_TO_DEEPL.get(lower) ?? [lower.toUpperCase()];
}

/**
 * LibreTranslate (`/translate`, `/languages`, `/detect`; errors are `{"error": …}`, docs/translation.md#libretranslate). It has no
 * formality, context, glossaries or tags of its own: the chain skips it for strict formality and custom
 * instructions, `context` is documented as ignored, and tags are handled by Hearth (tags/).
 */
export function createLibreEngine(config: EngineConfig): Engine {
  const client = new UpstreamClient(config.url || 'http://127.0.0.1:5000', config.timeoutMs);
  const scrub = (text: unknown) => clip(text, config.apiKey);
  /** DeepL code → LT code, filled from `/languages`. */
  let toLt = new Map<string, string>();

  function failure(res: UpstreamResponse): UpstreamError {
    let message = '';
    try {
      message = scrub((JSON.parse(res.body) as { error?: unknown }).error);
    } catch {}
    const said = message ? `: ${message}` : '';
    if (res.status === 403) return new UpstreamError('quota', `LibreTranslate refused the request${said}`);
    if (res.status === 429) return new UpstreamError('transient', `LibreTranslate is busy${said}`, 429);
    if (res.status >= 500)
      return new UpstreamError('transient', `LibreTranslate answered ${res.status}${said}`);
    if (res.status === 400 && /language|not supported/i.test(message)) {
      return new UpstreamError('unsupported', `LibreTranslate${said}`);
    }
    return new UpstreamError('rejected', `LibreTranslate rejected the request${said}`);
  }

  async function loadLanguages(): Promise<LanguageSupport> {
    const res = await client.request('GET', '/languages');
    if (res.status !== 200) throw failure(res);
    const list = jsonBody(res, 'LibreTranslate') as Array<{ code: string; targets?: string[] }>;
    const map = new Map<string, string>();
    const pairs = new Map<string, Set<string>>();
    for (const ltCode of new Set(list.flatMap((l) => [l.code, ...(l.targets ?? [])]))) {
      for (const code of deeplCodes(ltCode))
        if (!map.has(code) || code === ltCode.toUpperCase()) map.set(code, ltCode);
    }
    for (const lang of list) {
      const source = resolveSource(rootOf(deeplCodes(lang.code)[0] ?? ''));
      if (!source) continue;
      const targets = new Set(
        (lang.targets ?? []).flatMap(deeplCodes).filter((c) => TARGET_LANGUAGES.has(c)),
      );
      pairs.set(source, targets);
    }
    toLt = map;
    reachableFromAll = new Map(
      [...TARGET_LANGUAGES].map((t) => [t, [...pairs.values()].every((set) => set.has(t))]),
    );
    const allTargets = new Set([...pairs.values()].flatMap((t) => [...t]));
    return {
      sources: new Set(pairs.keys()),
      targets: allTargets,
      formality: new Set(),
      serves: (source, target) =>
        source === null ? allTargets.has(target) : (pairs.get(source)?.has(target) ?? false),
    };
  }
  const empty = (): LanguageSupport => ({
    sources: new Set(),
    targets: new Set(),
    formality: new Set(),
    serves: () => true, // unknown until `/languages` answers: let the upstream decide
  });
  const languages = new LanguageCache(loadLanguages, empty);

  /** Targets every LT source reaches: only for the others is a `/detect` round trip worth it. */
  let reachableFromAll = new Map<string, boolean>();

  /**
   * With auto-detection, LT refuses a pair it lacks with a 400; asking `/detect` first turns that into a
   * clean "unsupported" so the chain fails over to the next engine.
   */
  async function checkDetectedPair(job: EngineJob, support: LanguageSupport, signal: AbortLike) {
    const body: Record<string, unknown> = { q: job.texts.join('\n') };
    if (config.apiKey) body.api_key = config.apiKey;
    const res = await client.request('POST', '/detect', { json: body, signal });
    if (res.status !== 200) throw failure(res);
    const found = (jsonBody(res, 'LibreTranslate') as Array<{ language?: string }>)[0]?.language;
    const source = found ? resolveSource(rootOf(deeplCodes(found)[0] ?? '')) : null;
    if (source && !support.serves(source, job.target)) {
      throw new UpstreamError('unsupported', `LibreTranslate cannot translate ${source} into ${job.target}`);
    }
  }

  const ltCode = (code: string) => toLt.get(code) ?? toLt.get(rootOf(code)) ?? rootOf(code).toLowerCase();

  return {
    id: config.id,
    type: 'libretranslate',
    timeoutMs: config.timeoutMs,
    capabilities: {
      tags: false,
      formality: false,
      customInstructions: false,
      qualityModel: false,
      glossary: 'placeholders',
      styleRules: null,
    },
    languages: (opts) => (opts?.maxWaitMs === undefined ? languages.get() : languages.within(opts.maxWaitMs)),
    async translate(job: EngineJob, signal: AbortLike): Promise<EngineResult> {
      const support = await languages.within(ROUTING_WAIT_MS);
      if (job.source === null && !reachableFromAll.get(job.target))
        await checkDetectedPair(job, support, signal);
      const body: Record<string, unknown> = {
        q: job.texts,
        source: job.source ? ltCode(job.source) : 'auto',
        target: ltCode(job.target),
        format: job.html ? 'html' : 'text',
      };
      if (config.apiKey) body.api_key = config.apiKey;
      const res = await client.request('POST', '/translate', { json: body, signal });
      if (res.status !== 200) throw failure(res);
      const answer = jsonBody(res, 'LibreTranslate') as {
        translatedText?: unknown;
        detectedLanguage?: Array<{ language?: string }> | { language?: string };
      };
      const texts = answer.translatedText;
      if (
        !Array.isArray(texts) ||
        texts.length !== job.texts.length ||
        texts.some((t) => typeof t !== 'string')
      ) {
        throw new UpstreamError(
          'invalid_response',
          'LibreTranslate answered with a malformed translation list',
        );
      }
      const detected = Array.isArray(answer.detectedLanguage)
        ? answer.detectedLanguage
        : [answer.detectedLanguage];
      return {
        translations: (texts as string[]).map((text, i) => {
          const code = job.source ?? detected[i]?.language ?? detected[0]?.language;
          // DeepL reports a source code: `zt` (Traditional Chinese) is detected as ZH, `pb` as PT.
          return { text, detectedSource: code ? resolveSource(rootOf(deeplCodes(code)[0] ?? '')) : null };
        }),
        modelTypeUsed: null,
      };
    },
    close: () => client.close(),
  };
}
