import { bodyOf, type FakeRequest, FakeUpstream, shout } from './server.ts';

/** The real DeepL API's surface as Hearth uses it (docs/translation.md), on loopback. */
export function fakeDeepl(key = 'upstream-secret-key:fx'): Promise<
  FakeUpstream & {
    glossaries: Map<string, FakeGlossary>;
    documents: Map<string, FakeDocument>;
    styleRules: Map<string, Record<string, unknown>>;
  }
> {
  const glossaries = new Map<string, FakeGlossary>();
  const styleRules = new Map<string, Record<string, unknown>>();
  const documents = new Map<string, FakeDocument>();
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
    // Documents: the file is "translated" by upper-casing it; the first status poll says `translating`.
    if (req.path === '/v2/document' && req.method === 'POST') {
      const fields = multipart(req);
      const file = fields.get('file');
      if (!file || !fields.get('target_lang')) return { status: 400, body: { message: 'Bad request' } };
      const id = `UPDOC${documents.size + 1}`;
      documents.set(id, {
        key: `key-${id}`,
        fileName: file.fileName ?? '',
        content: file.value,
        fields: new Map([...fields].map(([k, v]) => [k, v.value])),
        polls: 0,
        downloads: 0,
      });
      return { status: 200, body: { document_id: id, document_key: `key-${id}` } };
    }
    const docPath = /^\/v2\/document\/([^/]+)(\/result)?$/.exec(req.path);
    if (docPath && req.method === 'POST') {
      const d = documents.get(docPath[1] ?? '');
      if (!d || new URLSearchParams(req.body).get('document_key') !== d.key)
        return { status: 404, body: { message: 'Not found' } };
      if (!docPath[2]) {
        d.polls++;
        return d.polls === 1
          ? { status: 200, body: { document_id: docPath[1], status: 'translating', seconds_remaining: 1 } }
          : {
              status: 200,
              body: { document_id: docPath[1], status: 'done', billed_characters: d.content.length },
            };
      }
      d.downloads++;
      return { status: 200, body: d.content.toUpperCase() };
    }
    // v3 style rules, as much as Hearth's upstream copies use.
    if (req.path === '/v3/style_rules' && req.method === 'POST') {
      const body = bodyOf(req);
      const id = `style-${++made}`;
      styleRules.set(id, body);
      return { status: 201, body: { style_id: id, ...body, version: 1 } };
    }
    if (req.path.startsWith('/v3/style_rules') && req.method === 'GET') {
      return {
        status: 200,
        body: { style_rules: [...styleRules].map(([style_id, r]) => ({ style_id, name: r.name })) },
      };
    }
    if (req.path.startsWith('/v3/style_rules/') && req.method === 'DELETE') {
      const id = decodeURIComponent(req.path.slice('/v3/style_rules/'.length));
      return styleRules.delete(id)
        ? { status: 204, body: '' }
        : { status: 404, body: { message: 'Not found' } };
    }
    // Write: the answer names what shaped it, so tests can see the style or tone arrived.
    if ((req.path === '/v2/write/rephrase' || req.path === '/v2/write/correct') && req.method === 'POST') {
      const body = bodyOf(req);
      if (body.writing_style && body.tone)
        return { status: 400, body: { message: 'Both writing_style and tone set' } };
      const how = req.path.endsWith('correct')
        ? 'corrected'
        : String(body.writing_style ?? body.tone ?? 'rephrased');
      return {
        status: 200,
        body: {
          improvements: (([] as unknown[]).concat(body.text ?? []) as string[]).map((t) => ({
            detected_source_language: 'en',
            target_language: body.target_lang ?? 'en-US',
            text: `${t.replace(/teh/g, 'the')} [${how}]`,
          })),
        },
      };
    }
    if (req.path === '/v2/translate' && req.method === 'POST') {
      const body = bodyOf(req);
      if (body.style_id !== undefined && !styleRules.has(String(body.style_id)))
        return { status: 404, body: { message: 'Style rule list not found' } };
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
  return Object.assign(fake, { glossaries, documents, styleRules }).start();
}

export interface FakeGlossary {
  name: string;
  source: string;
  target: string;
  entries: Map<string, string>;
}

export interface FakeDocument {
  key: string;
  fileName: string;
  content: string;
  fields: Map<string, string>;
  polls: number;
  downloads: number;
}

/** A text-only multipart/form-data reader, enough for the fake (files in tests are ASCII). */
function multipart(req: FakeRequest): Map<string, { value: string; fileName?: string }> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(String(req.headers['content-type']));
  const out = new Map<string, { value: string; fileName?: string }>();
  if (!boundary) return out;
  for (const part of req.body.split(`--${boundary[1] ?? boundary[2]}`)) {
    const [head = '', ...rest] = part.split('\r\n\r\n');
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (!name) continue;
    const fileName = /filename="([^"]*)"/.exec(head)?.[1];
    out.set(name, { value: rest.join('\r\n\r\n').replace(/\r\n$/, ''), ...(fileName ? { fileName } : {}) });
  }
  return out;
}
