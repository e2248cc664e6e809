import { bodyOf, FakeUpstream, shout } from './server.ts';

/** The real DeepL API's surface as Hearth uses it (docs/translation.md), on loopback. */
export function fakeDeepl(
  key = 'upstream-secret-key:fx',
): Promise<FakeUpstream & { glossaries: Map<string, FakeGlossary> }> {
  const glossaries = new Map<string, FakeGlossary>();
  let made = 0;
  const fake = new FakeUpstream((req) => {
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
    // v3 glossaries, as much as Hearth's upstream copies use.
    if (req.path === '/v3/glossaries' && req.method === 'POST') {
      const body = bodyOf(req) as {
        name: string;
        dictionaries: Array<{ entries: string; source_lang: string; target_lang: string }>;
      };
      const id = `up-${++made}`;
      const d = body.dictionaries[0];
      const entries = new Map((d?.entries ?? '').split('\n').map((l) => l.split('\t') as [string, string]));
      glossaries.set(id, {
        name: body.name,
        entries,
        source: d?.source_lang ?? '',
        target: d?.target_lang ?? '',
      });
      return {
        status: 201,
        body: { glossary_id: id, name: body.name, dictionaries: [], creation_time: new Date().toISOString() },
      };
    }
    if (req.path === '/v3/glossaries' && req.method === 'GET') {
      return {
        status: 200,
        body: {
          glossaries: [...glossaries].map(([glossary_id, g]) => ({
            glossary_id,
            name: g.name,
            dictionaries: [],
          })),
        },
      };
    }
    if (req.path.startsWith('/v3/glossaries/') && req.method === 'DELETE') {
      const id = decodeURIComponent(req.path.slice('/v3/glossaries/'.length));
      return glossaries.delete(id)
        ? { status: 204, body: '' }
        : { status: 404, body: { message: 'Not found' } };
    }
    if (req.path === '/v2/translate' && req.method === 'POST') {
      const body = bodyOf(req);
      const glossary = typeof body.glossary_id === 'string' ? glossaries.get(body.glossary_id) : undefined;
      if (body.glossary_id !== undefined && !glossary)
        return { status: 404, body: { message: 'Glossary not found' } };
      // A glossary term comes out as its target, verbatim (the rest is shouted).
      const texts = (([] as unknown[]).concat(body.text ?? []) as string[]).map((t) => {
        let out = t;
        [...(glossary?.entries ?? [])].forEach(([s], i) => {
          out = out.split(s).join(`\uE000${i}\uE000`);
        });
        return out;
      });
      if (!body.target_lang)
        return { status: 400, body: { message: "Value for 'target_lang' not supported." } };
      const source = typeof body.source_lang === 'string' ? body.source_lang.toUpperCase() : 'EN';
      return {
        status: 200,
        headers: { 'x-trace-id': 'f'.repeat(32) },
        body: {
          translations: texts.map((t) => ({
            detected_source_language: source,
            text: shout(t, !!body.tag_handling).replace(
              /\uE000(\d+)\uE000/g,
              (_m, i: string) => [...(glossary?.entries ?? [])][Number(i)]?.[1] ?? '',
            ),
            billed_characters: t.length,
            ...(body.model_type ? { model_type_used: 'quality_optimized' } : {}),
          })),
        },
      };
    }
    return { status: 404, body: { message: 'Not found' } };
  });
  return Object.assign(fake, { glossaries }).start();
}

export interface FakeGlossary {
  name: string;
  source: string;
  target: string;
  entries: Map<string, string>;
}
