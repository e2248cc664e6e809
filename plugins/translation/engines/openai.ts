import type { AbortLike } from '../cancellation.ts';
import { resolveSource, rootOf, SOURCE_LANGUAGES, TARGET_LANGUAGES } from '../languages.ts';
import { clip, jsonBody, UpstreamClient, type UpstreamResponse } from './http-client.ts';
import { improvePrompt } from './improve-prompt.ts';
import { allPairs } from './language-support.ts';
import { systemPrompt } from './openai-prompt.ts';
import {
  type Engine,
  type EngineConfig,
  type EngineJob,
  type EngineResult,
  type ImproveJob,
  type Improvement,
  UpstreamError,
} from './types.ts';

/**
 * An OpenAI-compatible chat endpoint (Ollama's `/v1/chat/completions` and others, docs/translation.md#openai-compatible-chat-and-ollama). Asks for
 * JSON `{"translations": […]}` and checks that there is one string per input.
 */
export function createOpenAiEngine(config: EngineConfig): Engine {
  const client = new UpstreamClient(config.url || 'http://127.0.0.1:11434/v1', config.timeoutMs);
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  const scrub = (text: unknown) => clip(text, config.apiKey);
  const configured = config.languages.map((c) => c.toUpperCase());
  const support = configured.length
    ? allPairs(
        configured.filter((c) => SOURCE_LANGUAGES.has(c)),
        configured.flatMap((c) => [...TARGET_LANGUAGES].filter((t) => t === c || rootOf(t) === c)),
        TARGET_LANGUAGES,
      )
    : allPairs(SOURCE_LANGUAGES, TARGET_LANGUAGES, TARGET_LANGUAGES);

  function failure(res: UpstreamResponse): UpstreamError {
    let message = '';
    try {
      const error = (JSON.parse(res.body) as { error?: { message?: unknown } | string }).error;
      message = scrub(typeof error === 'string' ? error : error?.message);
    } catch {}
    const said = message ? `: ${message}` : '';
    if (res.status === 401 || res.status === 403 || res.status === 402) {
      return new UpstreamError('quota', `the chat endpoint refused the configured key${said}`);
    }
    if (res.status === 429) return new UpstreamError('transient', `the chat endpoint is busy${said}`, 429);
    if (res.status >= 500)
      return new UpstreamError('transient', `the chat endpoint answered ${res.status}${said}`);
    return new UpstreamError('rejected', `the chat endpoint rejected the request${said}`);
  }

  /** One chat call: the instructions as the system message, the texts as JSON; the answer's content. */
  async function chat(system: string, texts: string[], signal: AbortLike): Promise<unknown> {
    const body = {
      model: config.model,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: JSON.stringify({ texts }) },
      ],
    };
    const res = await client.request('POST', '/chat/completions', { headers, json: body, signal });
    if (res.status !== 200) throw failure(res);
    const answer = jsonBody(res, 'the chat endpoint') as {
      choices?: Array<{ message?: { content?: unknown } }>;
    };
    return answer.choices?.[0]?.message?.content;
  }

  return {
    id: config.id,
    type: 'openai',
    timeoutMs: config.timeoutMs,
    capabilities: {
      tags: false,
      formality: true,
      customInstructions: true,
      qualityModel: false,
      glossary: 'prompt',
      styleRules: 'prompt',
    },
    languages: () => Promise.resolve(support),
    async translate(job: EngineJob, signal: AbortLike): Promise<EngineResult> {
      return parseContent(await chat(systemPrompt(job), job.texts, signal), job);
    },
    async improve(job: ImproveJob, signal: AbortLike): Promise<Improvement[]> {
      return parseImprovements(await chat(improvePrompt(job), job.texts, signal), job);
    },
    close: () => client.close(),
  };
}

/** Checks the model's JSON; a wrong count or shape is a misbehaving upstream (never passed on silently). */
function parseContent(content: unknown, job: EngineJob): EngineResult {
  let parsed: { translations?: unknown; detected_source_languages?: unknown };
  try {
    parsed = JSON.parse(String(content)) as typeof parsed;
  } catch {
    throw new UpstreamError('invalid_response', 'the model did not answer with JSON');
  }
  const list = parsed.translations;
  if (!Array.isArray(list) || list.some((t) => typeof t !== 'string')) {
    throw new UpstreamError(
      'invalid_response',
      'the model answered without a "translations" list of strings',
    );
  }
  if (list.length !== job.texts.length) {
    throw new UpstreamError(
      'invalid_response',
      `the model returned ${list.length} translations for ${job.texts.length} texts`,
    );
  }
  const detected = Array.isArray(parsed.detected_source_languages) ? parsed.detected_source_languages : [];
  return {
    translations: (list as string[]).map((text, i) => {
      const code = detected[i];
      return {
        text,
        detectedSource: job.source ?? (typeof code === 'string' ? resolveSource(rootOf(code)) : null),
      };
    }),
    modelTypeUsed: null,
  };
}

/** The model's `{"improvements": […]}`, one string per input, else a misbehaving upstream. */
function parseImprovements(content: unknown, job: ImproveJob): Improvement[] {
  let parsed: { improvements?: unknown; detected_source_languages?: unknown };
  try {
    parsed = JSON.parse(String(content)) as typeof parsed;
  } catch {
    throw new UpstreamError('invalid_response', 'the model did not answer with JSON');
  }
  const list = parsed.improvements;
  if (!Array.isArray(list) || list.some((t) => typeof t !== 'string') || list.length !== job.texts.length) {
    throw new UpstreamError(
      'invalid_response',
      `the model did not answer with ${job.texts.length} improved strings ("improvements")`,
    );
  }
  const detected = Array.isArray(parsed.detected_source_languages) ? parsed.detected_source_languages : [];
  return (list as string[]).map((text, i) => {
    const code = detected[i];
    const known = typeof code === 'string' ? resolveSource(rootOf(code)) : null;
    return { text, detectedSource: known ? known.toLowerCase() : null };
  });
}
