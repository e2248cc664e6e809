import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as deepl from 'deepl-node';
import { afterEach, describe, expect, it } from 'vitest';
import { partText } from '../../plugins/translation/documents/formats/office.ts';
import { docx, docxParagraph, pptx, TEXT_CASES, xlsx } from './document-fixtures.ts';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { fakeOpenAi } from './fakes/openai.ts';
import { bodyOf, type FakeUpstream } from './fakes/server.ts';
import { type Json, startTranslation, type TranslationHub, wrap } from './harness.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function hub(opts: Parameters<typeof startTranslation>[0]): Promise<TranslationHub> {
  const h = await startTranslation(opts);
  cleanup.push(() => h.t.stop());
  return h;
}
async function fake<T extends FakeUpstream>(p: Promise<T>): Promise<T> {
  const f = await p;
  cleanup.push(() => f.close());
  return f;
}
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-docs-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const file = (dir: string, name: string, data: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
};

async function engineHub(engine: 'deepl' | 'libretranslate' | 'openai', translation = {}) {
  const up =
    engine === 'deepl'
      ? await fake(fakeDeepl('k'))
      : engine === 'libretranslate'
        ? await fake(fakeLibre())
        : await fake(fakeOpenAi());
  const config =
    engine === 'deepl'
      ? { type: 'deepl', url: up.url, apiKey: 'k' }
      : engine === 'openai'
        ? { type: 'openai', url: `${up.url}/v1`, model: 'm' }
        : { type: 'libretranslate', url: up.url };
  const h = await hub({ engines: [config], translation });
  const { secret } = await h.createKey();
  return { h, up, secret, translator: h.translator(secret) };
}

/** A raw multipart upload, for what deepl-node would not send. */
async function upload(
  h: TranslationHub,
  secret: string,
  name: string,
  data: Buffer | string,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ target_lang: 'DE', ...fields })) form.append(k, v);
  form.append('file', new Blob([typeof data === 'string' ? data : new Uint8Array(data)]), name);
  const res = await fetch(`${h.t.url}/v2/document`, {
    method: 'POST',
    headers: { authorization: `DeepL-Auth-Key ${secret}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('documents: every format Hearth translates itself', () => {
  for (const engine of ['deepl', 'libretranslate', 'openai'] as const) {
    it(`${engine}: text formats come back in the same format, markup and layout kept, text translated`, async () => {
      const { translator } = await engineHub(engine);
      const dir = tempDir();
      for (const c of TEXT_CASES) {
        const out = join(dir, `out-${c.name}`);
        const status = await translator.translateDocument(file(dir, c.name, c.input), out, 'en', 'de');
        expect(status.done(), c.name).toBe(true);
        expect(readFileSync(out, 'utf8'), c.name).toBe(c.expected);
        expect(status.billedCharacters, c.name).toBeGreaterThan(0);
      }
    });
  }

  it('docx: paragraphs translated across their formatting runs; runs, properties and other parts kept', async () => {
    const { translator, up } = await engineHub('libretranslate');
    const dir = tempDir();
    const input = docx([
      docxParagraph([
        ['The ', false],
        ['kitchen', true],
        [' light is on.', false],
      ]),
      docxParagraph([['Good night', false]]),
      '<w:p><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>7</w:t></w:r></w:p>',
    ]);
    const out = join(dir, 'out.docx');
    await translator.translateDocument(file(dir, 'house.docx', input), out, 'en', 'de');
    const xml = partText(readFileSync(out), 'word/document.xml');
    expect(xml).toContain(
      '<w:r><w:t xml:space="preserve">THE </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">KITCHEN</w:t></w:r><w:r><w:t xml:space="preserve"> LIGHT IS ON.</w:t></w:r>',
    );
    expect(xml).toContain('<w:jc w:val="center"/>');
    expect(xml).toContain('GOOD NIGHT');
    expect(xml).toContain('<w:instrText> PAGE </w:instrText>'); // field code untouched, a lone number not sent
    expect(partText(readFileSync(out), 'word/styles.xml')).toContain('w:val="Title"');
    // One sentence per paragraph reached the engine, not one per run.
    const sent = up.calls('/translate').flatMap((r) => ([] as string[]).concat(JSON.parse(r.body).q));
    expect(sent).toEqual(['The kitchen light is on.', 'Good night']);
  });

  it('pptx and xlsx: slide paragraphs and shared strings translated; numbers and styles kept', async () => {
    const { translator } = await engineHub('openai');
    const dir = tempDir();
    await translator.translateDocument(file(dir, 'deck.pptx', pptx()), join(dir, 'o.pptx'), 'en', 'de');
    const slide = partText(readFileSync(join(dir, 'o.pptx')), 'ppt/slides/slide1.xml');
    expect(slide).toContain('<a:r><a:rPr b="1"/><a:t>WELCOME HOME</a:t></a:r>');
    expect(slide).toContain('<a:r><a:t>LIGHTS </a:t></a:r><a:r><a:rPr i="1"/><a:t>ARE ON</a:t></a:r>');
    await translator.translateDocument(file(dir, 'sheet.xlsx', xlsx()), join(dir, 'o.xlsx'), 'en', 'de');
    const shared = partText(readFileSync(join(dir, 'o.xlsx')), 'xl/sharedStrings.xml');
    expect(shared).toBe(
      '<sst count="2"><si><t>KITCHEN LIGHT</t></si><si><r><rPr><b/></rPr><t>DOOR</t></r><r><t> OPEN</t></r></si></sst>',
    );
    const sheet = partText(readFileSync(join(dir, 'o.xlsx')), 'xl/worksheets/sheet1.xml');
    expect(sheet).toContain('<v>42</v>');
    expect(sheet).toContain('<is><t>GARDEN</t></is>');
  });
});

describe('documents: the job API', () => {
  it('upload, status and a one-time download; the second download is refused (404)', async () => {
    const { h, secret, translator } = await engineHub('libretranslate');
    const dir = tempDir();
    const handle = await translator.uploadDocument(file(dir, 'a.txt', 'Hello world'), 'en', 'de');
    expect(handle.documentId).toMatch(/^[0-9A-F]{32}$/);
    const { status } = await translator.isDocumentTranslationComplete(handle);
    expect(status.status).toBe('done');
    expect(status.billedCharacters).toBe(11);
    await translator.downloadDocument(handle, join(dir, 'out.txt'));
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('HELLO WORLD');
    const again = translator.downloadDocument(handle, join(dir, 'again.txt'));
    await expect(again).rejects.toThrow(/already downloaded/);
    const raw = await h.call('POST', `/v2/document/${handle.documentId}/result`, {
      key: secret,
      form: `document_key=${handle.documentKey}`,
    });
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({ message: 'Document already downloaded' });
    // Status still answers; a wrong key is refused; another key does not see the document.
    expect((await translator.getDocumentStatus(handle)).status).toBe('done');
    const wrong = await h.call('POST', `/v2/document/${handle.documentId}`, {
      key: secret,
      form: 'document_key=00',
    });
    expect(wrong.status).toBe(403);
    const other = await h.createKey();
    const foreign = await h.call('POST', `/v2/document/${handle.documentId}`, {
      key: other.secret,
      form: `document_key=${handle.documentKey}`,
    });
    expect(foreign.status).toBe(404);
  });

  it('a file part with a filename but no Content-Type is the file (DeepL’s Python client, requests): upload, status, download', async () => {
    const { h, secret, translator } = await engineHub('libretranslate');
    // Byte for byte what requests (urllib3) encodes for deepl-python's upload_document: the data fields
    // first, then files={"file": (filename, fileobj)}, whose part has no Content-Type header.
    const boundary = '9f3c1d0e8a7b4c2d5e6f708192a3b4c5';
    const body = Buffer.from(
      [
        `--${boundary}`,
        'Content-Disposition: form-data; name="target_lang"',
        '',
        'DE',
        `--${boundary}`,
        'Content-Disposition: form-data; name="source_lang"',
        '',
        'EN',
        `--${boundary}`,
        'Content-Disposition: form-data; name="file"; filename="notes.txt"',
        '',
        'Hello world',
        `--${boundary}--`,
        '',
      ].join('\r\n'),
    );
    const res = await fetch(`${h.t.url}/v2/document`, {
      method: 'POST',
      headers: {
        authorization: `DeepL-Auth-Key ${secret}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'user-agent': 'deepl-python/1.21.1 (Linux) python/3.11.2 requests/2.31.0',
      },
      body,
    });
    const answer = (await res.json()) as { document_id: string; document_key: string };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    const handle = answer;
    const doc = { documentId: handle.document_id, documentKey: handle.document_key };
    const { status } = await translator.isDocumentTranslationComplete(doc);
    expect(status.status).toBe('done');
    const dir = tempDir();
    await translator.downloadDocument(doc, join(dir, 'notes-out.txt'));
    expect(readFileSync(join(dir, 'notes-out.txt'), 'utf8')).toBe('HELLO WORLD');
  });

  it('refuses oversize, unsupported, damaged and DeepL-only files with 4xx in DeepL shape, never 500', async () => {
    const { h, secret, translator } = await engineHub('libretranslate', { documents: { maxBytes: 2048 } });
    const big = await upload(h, secret, 'big.txt', 'x'.repeat(4096));
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/exceeds/);
    const unknown = await upload(h, secret, 'a.exe', 'MZ');
    expect(unknown).toEqual({
      status: 400,
      body: { message: 'Invalid file data.', detail: expect.stringContaining("'exe'") },
    });
    const pdf = await upload(h, secret, 'a.pdf', '%PDF-1.4');
    expect(pdf.status).toBe(400);
    expect(pdf.body.message).toMatch(/DeepL only.*no DeepL upstream/);
    for (const [name, data] of [
      ['broken.docx', Buffer.from('PK\u0003\u0004 not really a zip')],
      ['not-office.docx', docx([]).subarray(0, 40)],
      ['bad.json', '{"a": '],
      ['bad.yaml', 'a: [1, 2'],
      ['bad.xml', '<a><b></a>'],
      ['binary.txt', Buffer.from([0x00, 0x01, 0x02, 0x41])],
      ['latin1.srt', Buffer.from([0x48, 0xe9, 0xff])],
    ] as const) {
      const res = await upload(h, secret, name, data);
      expect(res.status, name).toBe(400);
      expect(res.body.message, name).toMatch(/^Invalid/);
    }
    const badTarget = await upload(h, secret, 'a.txt', 'Hi', { target_lang: 'XX' });
    expect(badTarget).toEqual({ status: 400, body: { message: "Value for 'target_lang' not supported." } });
    const noFile = await h.call('POST', '/v2/document', { key: secret, form: 'target_lang=DE' });
    expect(noFile.status).toBe(400);
    // Multipart without a file part, with the file as a plain field, without a name, and cut short.
    const form = (parts: FormData) =>
      fetch(`${h.t.url}/v2/document`, {
        method: 'POST',
        headers: { authorization: `DeepL-Auth-Key ${secret}` },
        body: parts,
      });
    const textOnly = new FormData();
    textOnly.append('target_lang', 'DE');
    textOnly.append('file', 'not a file');
    expect((await form(textOnly)).status).toBe(400);
    const nameless = new FormData();
    nameless.append('target_lang', 'DE');
    nameless.append('file', new Blob(['Hi']), '');
    const namelessRes = await form(nameless);
    expect(namelessRes.status).toBe(400);
    const cut = await fetch(`${h.t.url}/v2/document`, {
      method: 'POST',
      headers: {
        authorization: `DeepL-Auth-Key ${secret}`,
        'content-type': 'multipart/form-data; boundary=XYZ',
      },
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nHel',
    });
    expect(cut.status).toBe(400);
    expect(await cut.json()).toEqual({ message: expect.any(String) });
    // Nothing of the refused uploads stays on disk.
    expect(readdirSync(join(h.t.dataDir, 'translation', 'documents', 'incoming'))).toEqual([]);
    // deepl-node reports the refusal as an error with the message.
    const dir = tempDir();
    await expect(
      translator.translateDocument(file(dir, 'x.pdf', '%PDF'), join(dir, 'x-out.pdf'), 'en', 'de'),
    ).rejects.toThrow(/DeepL only/);
  });

  it('DeepL’s wording: an unknown extension is "Invalid file data.", a document whose source equals its target fails', async () => {
    const { h, secret } = await engineHub('libretranslate');
    const unknown = await upload(h, secret, 'a.exe', 'MZ');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      message: 'Invalid file data.',
      detail: expect.stringContaining("'exe'"),
    });
    // Named equal at upload: refused at once, as DeepL does.
    const same = await upload(h, secret, 'a.txt', 'Hallo Welt', { source_lang: 'DE', target_lang: 'DE' });
    expect(same).toEqual({ status: 400, body: { message: 'Source and target language are equal.' } });
    // Detected equal: the job fails with DeepL's message (deepl-node reports it). The LLM fake detects
    // English; a variant target (EN-GB) is a conversion, not the same language, and is translated.
    const llm = await engineHub('openai');
    const dir = tempDir();
    await expect(
      llm.translator.translateDocument(
        file(dir, 'b.txt', 'Hello world'),
        join(dir, 'b-out.txt'),
        null,
        'en-GB',
      ),
    ).resolves.toMatchObject({ status: 'done' });
    const sameLang = await upload(llm.h, llm.secret, 'c.txt', 'Hello world', { target_lang: 'EN' });
    expect(sameLang.status).toBe(200);
    // deepl-node's polling reports the failure with DeepL's message.
    await expect(
      llm.translator.isDocumentTranslationComplete({
        documentId: sameLang.body.document_id,
        documentKey: sameLang.body.document_key,
      }),
    ).rejects.toThrow('Source and target language are equal.');
    const raw = await llm.h.call('POST', `/v2/document/${sameLang.body.document_id}`, {
      key: llm.secret,
      form: `document_key=${sameLang.body.document_key}`,
    });
    expect(raw.body).toMatchObject({
      status: 'error',
      error_message: 'Source and target language are equal.',
    });
  });

  it('bills document characters apart from text in usage and analytics; document limits give 456', async () => {
    const { h, secret, translator } = await engineHub('libretranslate', { documents: { monthlyLimit: 2 } });
    const dir = tempDir();
    await translator.translateText('Hello', 'en', 'de');
    await translator.translateDocument(
      file(dir, 'a.txt', 'Good morning'),
      join(dir, 'a-out.txt'),
      'en',
      'de',
    );
    const usage = await translator.getUsage();
    expect(usage.character?.count).toBe(5 + 12);
    expect(usage.document).toMatchObject({ count: 1, limit: 2 });
    const day = new Date().toISOString().slice(0, 10);
    const report = await h.admin('GET', `/v2/admin/analytics?start_date=${day}&end_date=${day}&group_by=key`);
    expect(report.body.usage_report.total_usage).toMatchObject({
      total_characters: 17,
      text_translation_characters: 5,
      document_translation_characters: 12,
    });
    await translator.translateDocument(file(dir, 'b.txt', 'Hi'), join(dir, 'b-out.txt'), 'en', 'de');
    const third = await upload(h, secret, 'c.txt', 'Hi');
    expect(third).toEqual({ status: 456, body: { message: expect.stringContaining('document limit') } });
  });

  it('refuses a document past the key character limit with 456 at upload', async () => {
    const { h } = await engineHub('libretranslate');
    const made = await h.admin('POST', '/v2/admin/developer-keys', {});
    await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: made.body.key_id, characters: 10 });
    const res = await upload(h, made.body.key, 'a.txt', 'This text is longer than ten characters');
    expect(res.status).toBe(456);
  });

  it('applies glossaries and formality to documents as to /v2/translate', async () => {
    const { h, up, secret, translator } = await engineHub('deepl');
    const client = new deepl.DeepLClient(secret, { serverUrl: h.t.url, maxRetries: 0 });
    const glossary = await client.createMultilingualGlossary('house', [
      {
        sourceLangCode: 'en',
        targetLangCode: 'de',
        entries: new deepl.GlossaryEntries({ entries: { lamp: 'Leuchte' } }),
      },
    ]);
    const dir = tempDir();
    await translator.translateDocument(file(dir, 'a.txt', 'The lamp'), join(dir, 'o.txt'), 'en', 'de', {
      glossary: glossary.glossaryId,
      formality: 'more',
    });
    expect(readFileSync(join(dir, 'o.txt'), 'utf8')).toBe('THE Leuchte');
    const last = up.calls('/v2/translate').at(-1);
    expect(last && bodyOf(last).formality).toBe('more');
  });

  it('a document naming a missing glossary, memory or style list, or another key’s, is refused at upload like /v2/translate', async () => {
    const { h, secret } = await engineHub('deepl');
    const other = await h.createKey();
    const theirs = await new deepl.DeepLClient(other.secret, {
      serverUrl: h.t.url,
      maxRetries: 0,
    }).createMultilingualGlossary('theirs', [
      {
        sourceLangCode: 'en',
        targetLangCode: 'de',
        entries: new deepl.GlossaryEntries({ entries: { a: 'b' } }),
      },
    ]);
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const fields of [
      { glossary_id: missing },
      { glossary_id: theirs.glossaryId },
      { translation_memory_id: missing },
      { style_id: missing },
    ]) {
      const params = { source_lang: 'EN', target_lang: 'DE', ...fields };
      const text = await h.call('POST', '/v2/translate', {
        key: secret,
        form: new URLSearchParams({ text: 'Hello', ...params }).toString(),
      });
      expect(text.status, JSON.stringify(fields)).toBeGreaterThanOrEqual(400);
      const doc = await upload(h, secret, 'a.txt', 'Hello', params);
      expect([doc.status, doc.body], JSON.stringify(fields)).toEqual([text.status, text.body]);
    }
    // Nothing was queued for them.
    expect(readdirSync(join(h.t.dataDir, 'translation', 'documents', 'incoming'))).toEqual([]);
  });

  it('answers sentences from a translation memory before any engine is called', async () => {
    const { h, up, secret, translator } = await engineHub('libretranslate');
    const dir = tempDir();
    const tmx = `<?xml version="1.0"?><tmx version="1.4"><header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="x" adminlang="en" srclang="en" datatype="plaintext"/><body><tu><tuv xml:lang="en"><seg>The door is open.</seg></tuv><tuv xml:lang="de"><seg>Die Tür ist offen.</seg></tuv></tu></body></tmx>`;
    const client = new deepl.DeepLClient(secret, { serverUrl: h.t.url, maxRetries: 0 });
    const job = await client.importTranslationMemoryFromFilepath(file(dir, 'm.tmx', tmx), {
      displayName: 'M',
    });
    const memory = job.results[0]?.translationMemoryId as string;
    await translator.translateDocument(
      file(dir, 'a.txt', 'The door is open.\nGood night'),
      join(dir, 'o.txt'),
      'en',
      'de',
      { translationMemory: memory } as deepl.DocumentTranslateOptions,
    );
    expect(readFileSync(join(dir, 'o.txt'), 'utf8')).toBe('Die Tür ist offen.\nGOOD NIGHT');
    const sent = up.calls('/translate').flatMap((r) => ([] as string[]).concat(JSON.parse(r.body).q));
    expect(sent).toEqual(['Good night']);
  });
});

describe('documents: formats only DeepL translates', () => {
  it('a PDF goes to the DeepL upstream (polled until done) and comes back once; billed as documents', async () => {
    const up = await fake(fakeDeepl('k'));
    const h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'k' }] });
    const { secret } = await h.createKey();
    const translator = h.translator(secret);
    const dir = tempDir();
    const status = await translator.translateDocument(
      file(dir, 'manual.pdf', '%PDF-1.4 hello'),
      join(dir, 'out.pdf'),
      'en',
      'de',
      { formality: 'less' },
    );
    expect(status.billedCharacters).toBe(14);
    expect(readFileSync(join(dir, 'out.pdf'), 'utf8')).toBe('%PDF-1.4 HELLO');
    const sent = [...up.documents.values()][0];
    expect(sent).toMatchObject({ fileName: 'manual.pdf', downloads: 1, polls: 2 });
    expect(Object.fromEntries(sent?.fields ?? [])).toMatchObject({ target_lang: 'de', formality: 'less' });
    // The upstream document key is kept sealed, never in the clear.
    const jobs = readFileSync(join(h.t.dataDir, 'translation.documents.json'), 'utf8');
    expect(jobs).not.toContain(sent?.key);
    const day = new Date().toISOString().slice(0, 10);
    const report = await h.admin('GET', `/v2/admin/analytics?start_date=${day}&end_date=${day}`);
    expect(report.body.usage_report.total_usage.document_translation_characters).toBe(14);
  });

  it('an output_format other than the input goes to DeepL; Hearth glossaries on forwarded files are refused', async () => {
    const up = await fake(fakeDeepl('k'));
    const h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'k' }] });
    const { secret } = await h.createKey();
    const res = await upload(h, secret, 'a.txt', 'hello', { output_format: 'pdf' });
    expect(res.status).toBe(200);
    const handle = { documentId: res.body.document_id, documentKey: res.body.document_key };
    const translator = h.translator(secret);
    await translator.isDocumentTranslationComplete(handle);
    expect(Object.fromEntries([...up.documents.values()][0]?.fields ?? [])).toMatchObject({
      output_format: 'pdf',
    });
    const refused = await upload(h, secret, 'a.pdf', '%PDF', { glossary_id: 'g1', source_lang: 'EN' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/glossary_id/);
    // Spelled right (it once said "glossarys"), for every local-only id.
    expect(refused.body.message).toContain("Hearth's glossaries");
    for (const [field, noun] of [
      ['glossary_ids', 'glossaries'],
      ['translation_memory_id', 'translation memories'],
      ['style_id', 'style lists'],
    ] as const) {
      const res = await upload(h, secret, 'a.pdf', '%PDF', { [field]: 'x', source_lang: 'EN' });
      expect(res.body.message, field).toContain(`Hearth's ${noun}`);
      expect(res.body.message, field).not.toMatch(/rys\b|memorys/);
    }
  });
});

describe('documents: restarts', () => {
  it('a job a restart interrupted resumes from its stored upload and completes', async () => {
    const up = await fake(fakeLibre());
    up.trouble({ delayMs: 60_000, path: '/translate' });
    let h = await hub({ engines: [{ type: 'libretranslate', url: up.url, timeoutMs: 60_000 }] });
    const { secret } = await h.createKey();
    const dir = tempDir();
    const translator = h.translator(secret);
    const handle = await translator.uploadDocument(file(dir, 'a.txt', 'Hello world'), 'en', 'de');
    expect((await translator.getDocumentStatus(handle)).status).toBe('translating');
    up.heal();
    cleanup.pop(); // the restarted hub is stopped instead
    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    const after = h.translator(secret);
    const { status } = await after.isDocumentTranslationComplete(handle);
    expect(status.status).toBe('done');
    await after.downloadDocument(handle, join(dir, 'out.txt'));
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('HELLO WORLD');
  });

  it('a forwarded job a restart interrupted resumes polling the same DeepL document (no second upload)', async () => {
    const up = await fake(fakeDeepl('k'));
    up.trouble({ path: '/v2/document/UPDOC1', delayMs: 60_000 });
    let h = await hub({ engines: [{ type: 'deepl', url: up.url, apiKey: 'k' }] });
    const { secret } = await h.createKey();
    const dir = tempDir();
    const handle = await h.translator(secret).uploadDocument(file(dir, 'a.pdf', '%PDF hi'), 'en', 'de');
    expect((await h.translator(secret).getDocumentStatus(handle)).status).toBe('translating');
    up.heal();
    cleanup.pop();
    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    const after = h.translator(secret);
    await after.isDocumentTranslationComplete(handle);
    await after.downloadDocument(handle, join(dir, 'out.pdf'));
    expect(readFileSync(join(dir, 'out.pdf'), 'utf8')).toBe('%PDF HI');
    expect(up.calls('/v2/document')).toHaveLength(1);
  });

  it('a job restarts keep interrupting fails cleanly with a message; queued jobs and results survive', async () => {
    const up = await fake(fakeLibre());
    let h = await hub({ engines: [{ type: 'libretranslate', url: up.url }] });
    const { secret } = await h.createKey();
    const dir = tempDir();
    const translator = h.translator(secret);
    const done = await translator.uploadDocument(file(dir, 'a.txt', 'Hello'), 'en', 'de');
    await translator.isDocumentTranslationComplete(done);
    const stuck = await translator.uploadDocument(file(dir, 'b.txt', 'Good night'), 'en', 'de');
    await translator.isDocumentTranslationComplete(stuck);
    const jobsFile = join(h.t.dataDir, 'translation.documents.json');
    await h.t.stop({ keepData: true });
    cleanup.pop();
    const doc = JSON.parse(readFileSync(jobsFile, 'utf8'));
    Object.assign(doc.jobs[stuck.documentId], { status: 'translating', interruptions: 2 });
    writeFileSync(jobsFile, JSON.stringify(doc));
    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    const after = h.translator(secret);
    const failed = await after.getDocumentStatus(stuck);
    expect(failed.status).toBe('error');
    expect(failed.errorMessage).toMatch(/interrupted by restarts/);
    await after.downloadDocument(done, join(dir, 'out.txt'));
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('HELLO');
  });
});
