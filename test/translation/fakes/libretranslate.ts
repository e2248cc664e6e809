import { bodyOf, FakeUpstream, shout } from './server.ts';

const LANGUAGES = [
  { code: 'en', name: 'English', targets: ['de', 'fr', 'es', 'zt'] },
  { code: 'de', name: 'German', targets: ['en', 'fr'] },
  { code: 'fr', name: 'French', targets: ['en', 'de'] },
  { code: 'es', name: 'Spanish', targets: ['en'] },
];

/** Naive detection, enough for tests: German function words mean German. */
const detect = (text: string) => (/\b(der|die|das|und|ist)\b/i.test(text) ? 'de' : 'en');

/** LibreTranslate 1.9 (docs/translation.md#libretranslate): `/translate`, `/languages`, `/detect`, `{"error": …}` bodies. */
export function fakeLibre(apiKey?: string): Promise<FakeUpstream> {
  return new FakeUpstream((req) => {
    if (req.path === '/languages') return { status: 200, body: LANGUAGES };
    const body = bodyOf(req);
    if (apiKey !== undefined && body.api_key !== apiKey) {
      return { status: 403, body: { error: 'Invalid API key' } };
    }
    if (req.path === '/detect') {
      return { status: 200, body: [{ confidence: 90, language: detect(String(body.q)) }] };
    }
    if (req.path === '/translate') {
      const q = body.q;
      const texts = Array.isArray(q) ? (q as string[]) : [String(q)];
      const auto = body.source === 'auto';
      const sources = texts.map((t) => (auto ? detect(t) : String(body.source)));
      for (const source of sources) {
        const lang = LANGUAGES.find((l) => l.code === source);
        if (!lang) return { status: 400, body: { error: `${source} is not supported` } };
        if (!lang.targets.includes(String(body.target))) {
          return { status: 400, body: { error: `${body.target} is not supported` } };
        }
      }
      const translated = texts.map((t) => shout(t, body.format === 'html'));
      return {
        status: 200,
        body: {
          translatedText: Array.isArray(q) ? translated : translated[0],
          ...(auto ? { detectedLanguage: sources.map((language) => ({ confidence: 90, language })) } : {}),
        },
      };
    }
    return { status: 404, body: { error: 'Not Found' } };
  }).start();
}
