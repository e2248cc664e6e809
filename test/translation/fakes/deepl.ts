import { bodyOf, FakeUpstream, shout } from './server.ts';

/** The real DeepL API's surface as Hearth uses it (docs/translation.md), on loopback. */
export function fakeDeepl(key = 'upstream-secret-key:fx'): Promise<FakeUpstream> {
  return new FakeUpstream((req) => {
    // Like DeepL's own mock server: a request without a User-Agent is refused.
    if (!req.headers['user-agent']) return { status: 400, body: { message: 'User-Agent header missing' } };
    if (req.headers.authorization !== `DeepL-Auth-Key ${key}`) return { status: 403, body: '' };
    if (req.path.startsWith('/v2/languages')) {
      const target = req.path.includes('type=target');
      const codes = target
        ? ['DE', 'FR', 'EN-GB', 'EN-US', 'ES', 'JA', 'NL']
        : ['DE', 'EN', 'FR', 'ES', 'JA', 'NL'];
      return {
        status: 200,
        body: codes.map((c) => ({
          language: c,
          name: c,
          ...(target ? { supports_formality: ['DE', 'FR', 'ES', 'JA', 'NL'].includes(c) } : {}),
        })),
      };
    }
    if (req.path === '/v2/translate' && req.method === 'POST') {
      const body = bodyOf(req);
      const texts = ([] as unknown[]).concat(body.text ?? []) as string[];
      if (!body.target_lang)
        return { status: 400, body: { message: "Value for 'target_lang' not supported." } };
      const source = typeof body.source_lang === 'string' ? body.source_lang.toUpperCase() : 'EN';
      return {
        status: 200,
        headers: { 'x-trace-id': 'f'.repeat(32) },
        body: {
          translations: texts.map((t) => ({
            detected_source_language: source,
            text: shout(t, !!body.tag_handling),
            billed_characters: t.length,
            ...(body.model_type ? { model_type_used: 'quality_optimized' } : {}),
          })),
        },
      };
    }
    return { status: 404, body: { message: 'Not found' } };
  }).start();
}
