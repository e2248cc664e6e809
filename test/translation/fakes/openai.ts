import { bodyOf, FakeUpstream, shout } from './server.ts';

/** An OpenAI-compatible chat endpoint (Ollama's `/v1/chat/completions`, docs/translation.md#openai-compatible-chat-and-ollama). */
/** The glossary pairs a system prompt lists (`- "source" → "target"`): a well-behaved model uses them. */
function promptGlossary(system: string): Array<[string, string]> {
  return [...system.matchAll(/^- ("(?:[^"\\]|\\.)*") → ("(?:[^"\\]|\\.)*")$/gm)].map(
    (m) => [JSON.parse(m[1] as string), JSON.parse(m[2] as string)] as [string, string],
  );
}

export function fakeOpenAi(
  opts: { answer?: (texts: string[]) => unknown; ignoreGlossary?: boolean } = {},
): Promise<FakeUpstream> {
  return new FakeUpstream((req) => {
    if (req.path !== '/v1/chat/completions')
      return { status: 404, body: { error: { message: 'not found' } } };
    const body = bodyOf(req) as { messages: Array<{ role: string; content: string }>; model?: string };
    if (body.model === 'missing')
      return { status: 404, body: { error: { message: "model 'missing' not found" } } };
    const user = body.messages.find((m) => m.role === 'user');
    const texts = (JSON.parse(user?.content ?? '{}') as { texts: string[] }).texts;
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    // Rephrase or correct: a well-behaved model fixes the typo and follows the style line it was given.
    const improving = system.startsWith('You are a writing assistant.')
      ? {
          improvements: texts.map((t) => {
            const style = /Use an? ([a-z ]+) (?:writing style|tone)\./.exec(system)?.[1] ?? 'plain';
            return `${t.replace(/teh/g, 'the')} [${style}]`;
          }),
          detected_source_languages: texts.map(() => 'en'),
        }
      : undefined;
    const terms = opts.ignoreGlossary
      ? []
      : promptGlossary(body.messages.find((m) => m.role === 'system')?.content ?? '');
    const answer = opts.answer?.(texts) ??
      improving ?? {
        translations: texts.map((t) => {
          let out = t;
          terms.forEach(([s], i) => {
            out = out.split(s).join(`\uE000${i}\uE000`);
          });
          return shout(out).replace(/\uE000(\d+)\uE000/g, (_m, i: string) => terms[Number(i)]?.[1] ?? '');
        }),
        detected_source_languages: texts.map(() => 'en'),
      };
    return {
      status: 200,
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: typeof answer === 'string' ? answer : JSON.stringify(answer),
            },
            finish_reason: 'stop',
          },
        ],
      },
    };
  }).start();
}
