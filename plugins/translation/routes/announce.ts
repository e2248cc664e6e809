import { type HearthRouter, HttpError, type MqttApi } from '../../../core/sdk.ts';
import { invalid, notFoundError, notSpecified, notSupported, unavailable } from '../errors.ts';
import { resolveSource, resolveTarget, rootOf } from '../languages.ts';
import { requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import type { TranslateRequest } from '../request/types.ts';
import type { TranslateService } from '../translate-service.ts';

const MAX_TARGETS = 20;
const MAX_TEXT = 5000;
/**
 * How long a language waits for the broker to take its message. QoS 1 through an external broker that is
 * down waits for a reconnection (mqtt.js queues it), which would hold the request forever.
 */
export const MQTT_CONFIRM_MS = 2000;

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

/** Publishes with QoS 1; refuses (503) when the broker fails or does not confirm in time. */
async function publishBounded(mqtt: MqttApi, topic: string, payload: string): Promise<void> {
  const sent = mqtt.publish(topic, payload, { qos: 1 });
  sent.catch(() => {}); // a late failure after the timeout has nobody left to tell
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), MQTT_CONFIRM_MS);
  });
  try {
    await Promise.race([sent, late]);
  } catch {
    // The broker's own error text may name the broker (its URL); the client learns what matters.
    throw unavailable(
      `The MQTT broker did not take the announcement on '${topic}' within ${MQTT_CONFIRM_MS} ms; ` +
        'it went out on the site WebSocket only.',
    );
  } finally {
    clearTimeout(timer);
  }
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
          // The site WebSocket's envelope is `{command, data}` (lighting/socket.ts). It goes first: a broker
          // that is down must not keep the announcement from the speakers on the WebSocket.
          lighting.broadcast(siteId, { command: 'announce', data: message });
          await publishBounded(deps.mqtt, topic, JSON.stringify(message));
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
