import { HttpError } from '../../../core/http/errors.ts';
import type { HearthRouter } from '../../../core/http/types.ts';
import type { MqttApi } from '../../../core/mqtt/types.ts';
import { invalid, notFoundError, notSpecified, notSupported } from '../errors.ts';
import { resolveSource, resolveTarget, rootOf } from '../languages.ts';
import { requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import type { TranslateRequest } from '../request/types.ts';
import type { TranslateService } from '../translate-service.ts';

const MAX_TARGETS = 20;
const MAX_TEXT = 5000;

export interface AnnounceDeps {
  service: TranslateService;
  mqtt: MqttApi;
  lighting: () => LightingLike | undefined;
}

/** The two lighting exports announcements use (sites by key, the site WebSocket). */
export interface LightingLike {
  sites: { resolveKey(key: string): string | null };
  broadcast(siteId: string, message: unknown): number;
}

function plainRequest(text: string, source: string | null, target: string): TranslateRequest {
  return {
    texts: [text],
    source,
    target,
    context: null,
    showBilledCharacters: false,
    splitSentences: null,
    preserveFormatting: false,
    formality: null,
    modelType: null,
    glossaryIds: [],
    styleId: null,
    translationMemoryId: null,
    translationMemoryThreshold: 75,
    customInstructions: [],
    tags: null,
  };
}

/**
 * `POST /api/site/:key/announce`: one translation per language (through the cache), each published on
 * MQTT `hearth/<site>/announce/<lang>` and on the site WebSocket. Languages that fail are listed, the rest
 * still go out; when every language fails the first error is the answer.
 */
export function mountAnnounce(router: HearthRouter, deps: AnnounceDeps): void {
  router.post('/api/site/:key/announce', async (ctx) => {
    const lighting = deps.lighting();
    const siteId = lighting?.sites.resolveKey(ctx.params.key ?? '') ?? null;
    if (!lighting || !siteId) throw notFoundError('Unknown site.');
    const p = new ParamReader(await requestParams(ctx.req));
    const text = p.string('text');
    if (!text) throw notSpecified('text');
    if ([...text].length > MAX_TEXT) throw invalid(`Parameter 'text' may be at most ${MAX_TEXT} characters.`);
    const sourceCode = p.string('source_lang');
    const source = sourceCode ? resolveSource(sourceCode) : null;
    if (sourceCode && !source) throw notSupported('source_lang');
    const codes = p.list('target_langs', true);
    if (!codes || codes.length === 0) throw notSpecified('target_langs');
    if (codes.length > MAX_TARGETS)
      throw invalid(`Parameter 'target_langs' accepts at most ${MAX_TARGETS} languages.`);
    const targets = [...new Set(codes.map((c) => resolveTarget(c)))];
    if (targets.some((t) => t === null)) throw notSupported('target_langs');

    const outcomes = await Promise.all(
      (targets as string[]).map(async (target) => {
        try {
          // Nothing to translate when the announcement is already in that language.
          const [out] =
            source && rootOf(target) === source
              ? [{ text, detected_source_language: source }]
              : await deps.service.translate(
                  plainRequest(text, source, target),
                  { id: `site:${siteId}`, limit: null },
                  '',
                );
          const lang = target.toLowerCase();
          const topic = `hearth/${siteId}/announce/${lang}`;
          const message = {
            text: out?.text ?? '',
            lang,
            source_lang: out?.detected_source_language ?? '',
            original: text,
          };
          await deps.mqtt.publish(topic, JSON.stringify(message), { qos: 1 });
          // The site WebSocket's envelope is `{command, data}` (lighting/socket.ts).
          lighting.broadcast(siteId, { command: 'announce', data: message });
          return {
            ok: true as const,
            lang,
            text: message.text,
            detected_source_language: message.source_lang,
            topic,
          };
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          return { ok: false as const, lang: target.toLowerCase(), error: err };
        }
      }),
    );
    const published = outcomes.filter((o) => o.ok).map(({ ok: _ok, ...rest }) => rest);
    const failed = outcomes.filter((o) => !o.ok);
    if (published.length === 0 && failed[0]) throw failed[0].error;
    ctx.body = {
      published,
      failed: failed.map((f) => ({ lang: f.lang, status: f.error.status, message: f.error.message })),
    };
  });
}
