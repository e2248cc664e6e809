import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as deepl from 'deepl-node';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { QueryDistance } from '../../plugins/translation/memories/bit-distance.ts';
import { MatchIndex } from '../../plugins/translation/memories/fuzzy.ts';
import { fakeDeepl } from './fakes/deepl.ts';
import { fakeLibre } from './fakes/libretranslate.ts';
import { fakeOpenAi } from './fakes/openai.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub, wrap } from './harness.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
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
const client = (h: TranslationHub, secret: string) =>
  new deepl.DeepLClient(secret, { serverUrl: h.t.url, maxRetries: 0, minTimeout: 5000 });

function tmxFile(units: Array<[string, Record<string, string>]>, srclang = 'en-US'): string {
  const body = units
    .map(
      ([source, targets]) =>
        `<tu><tuv xml:lang="${srclang}"><seg>${source}</seg></tuv>${Object.entries(targets)
          .map(([l, t]) => `<tuv xml:lang="${l}"><seg>${t}</seg></tuv>`)
          .join('')}</tu>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="x" adminlang="en" srclang="${srclang}" datatype="plaintext"/>
<body>${body}</body></tmx>`;
}

function tempFile(name: string, text: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tmx-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function imported(
  h: TranslationHub,
  secret: string,
  units: Array<[string, Record<string, string>]>,
  srclang = 'en-US',
) {
  const job = await client(h, secret).importTranslationMemoryFromFilepath(
    tempFile('house.tmx', tmxFile(units, srclang)),
    { displayName: 'House' },
  );
  return job.results[0]?.translationMemoryId as string;
}

describe('translation memories through deepl-node', () => {
  it('imports TMX through the upload URL, lists, shows, pages segments, exports and deletes', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    const units: Array<[string, Record<string, string>]> = Array.from({ length: 120 }, (_, i) => [
      `Sentence number ${i} &amp; more`,
      { 'de-DE': `Satz Nummer ${i}`, 'en-GB': `Sentence ${i}` },
    ]);
    // One unit without a translation is skipped (and counted).
    const file = tempFile('house.tmx', `\ufeff${tmxFile([...units, ['Lonely', {}]])}`);
    const job = await c.importTranslationMemoryFromFilepath(file, { displayName: 'House' });
    expect(job.operation).toBe('import');
    expect(job.results[0]).toMatchObject({ status: 'completed', skippedSegmentCount: 1 });
    const id = job.results[0]?.translationMemoryId as string;
    const info = await c.getTranslationMemory(id);
    expect(info).toMatchObject({
      name: 'House',
      sourceLanguage: 'en',
      targetLanguages: ['de', 'en-gb'],
      segmentCount: 120,
    });
    expect((await c.listTranslationMemories()).map((m) => m.translationMemoryId)).toEqual([id]);

    const first = await c.listTranslationMemorySegments(id, { pageSize: 100 });
    expect(first.segments).toHaveLength(100);
    expect(first.segmentCount).toBe(120);
    expect(first.segments[0]?.sourceText).toBe('Sentence number 0 & more');
    const second = await c.listTranslationMemorySegments(id, {
      pageSize: 100,
      pageCursor: first.nextPageCursor as string,
    });
    expect(second.segments.map((s) => s.sourceText)).toHaveLength(20);
    expect(second.nextPageCursor).toBeUndefined();
    const filtered = await c.listTranslationMemorySegments(id, { filterText: 'NUMMER 42' });
    expect(
      filtered.segments.map((s) => s.targets.find((t) => t.targetLanguage === 'de')?.targetText),
    ).toEqual(['Satz Nummer 42']);
    expect(
      (await c.listTranslationMemorySegments(id, { filterText: 'NUMMER 42', filterCaseSensitive: true }))
        .segments,
    ).toEqual([]);

    const out = tempFile('x', '');
    rmSync(out);
    const exported = await c.exportTranslationMemoryToFilepath(id, out);
    expect(exported.results[0]?.status).toBe('completed');
    const tmx = readFileSync(out, 'utf8');
    expect(tmx).toContain('creationtool="Hearth"');
    expect(tmx).toContain('<tuv xml:lang="de"><seg>Satz Nummer 119</seg></tuv>');
    expect((await c.getTranslationMemoryJob(exported.jobId)).results[0]?.status).toBe('downloaded');
    // Round trip: the export imports again with the same segments.
    const again = await c.importTranslationMemoryFromFilepath(out);
    expect((await c.getTranslationMemory(again.results[0]?.translationMemoryId as string)).segmentCount).toBe(
      120,
    );

    await c.deleteTranslationMemory(id);
    await expect(c.getTranslationMemory(id)).rejects.toThrow(/Not found/);
  });

  it('fails an import of a file that is not TMX, and refuses an upload URL without its secret', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const { secret } = await h.createKey();
    const c = client(h, secret);
    await expect(
      c.importTranslationMemoryFromFilepath(tempFile('bad.tmx', '<html><p>no</p></html>')),
    ).rejects.toThrow(/not TMX/);
    const created = await c.createTranslationMemoryImport('a.tmx', 10);
    const forged = created.uploadUrl.replace(/token=[^&]+/, 'token=guess');
    const res = await fetch(forged, { method: 'PUT', body: 'x' });
    expect(res.status).toBe(403);
    expect((await c.getTranslationMemoryJob(created.jobId)).results[0]?.status).toBe('awaiting_input');
    // Another key cannot see the job.
    const other = await h.createKey();
    await expect(client(h, other.secret).getTranslationMemoryJob(created.jobId)).rejects.toThrow(/Not found/);
  });

  it('fails a job a restart interrupted, and keeps memories across the restart', async () => {
    let h = await startTranslation({
      engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }],
    });
    const { secret } = await h.createKey();
    const id = await imported(h, secret, [['Hello world', { de: 'Hallo Welt' }]]);
    const jobs = join(h.t.dataDir, 'translation.memory-jobs.json');
    const doc = JSON.parse(readFileSync(jobs, 'utf8'));
    const jobId = Object.keys(doc.jobs)[0] as string;
    await h.t.stop({ keepData: true });
    doc.jobs[jobId].status = 'processing';
    writeFileSync(jobs, JSON.stringify(doc));
    h = wrap(await h.t.restart());
    cleanup.push(() => h.t.stop());
    const job = await client(h, secret).getTranslationMemoryJob(jobId);
    expect(job.results[0]).toMatchObject({
      status: 'failed',
      errorMessage: expect.stringContaining('restart'),
    });
    expect((await client(h, secret).getTranslationMemory(id)).segmentCount).toBe(1);
  });
});

describe('translation_memory_id on /v2/translate', () => {
  for (const engine of ['deepl', 'libretranslate', 'openai'] as const) {
    it(`${engine}: exact and fuzzy matches are answered from the memory; only the rest reach the engine`, async () => {
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
      const h = await hub({ engines: [config] });
      const { secret } = await h.createKey();
      const id = await imported(
        h,
        secret,
        [['Hallo Welt!', { 'en-US': 'Hello world!', en: 'Hello world (en)' }]],
        'de-DE',
      );
      const t = h.translator(secret);
      const opts = { extraRequestParameters: { translation_memory_id: id } };
      // DeepL's own example: "Halloo Welt!" matches "Hallo Welt!" at the default threshold 75.
      const out = await t.translateText(['Hallo Welt!', 'Halloo Welt!', 'das ist neu'], 'de', 'en-US', opts);
      expect(out.map((r) => r.text)).toEqual(['Hello world!', 'Hello world!', 'DAS IST NEU']);
      const path =
        engine === 'deepl' ? '/v2/translate' : engine === 'openai' ? '/v1/chat/completions' : '/translate';
      const sent = up.calls(path).map((r) => r.body);
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toContain('Hallo');
      // At threshold 100 the typo is no match; EN-GB falls back to the memory's EN translation.
      const strict = await t.translateText('Halloo Welt!', 'de', 'en-GB', {
        extraRequestParameters: { translation_memory_id: id, translation_memory_threshold: '100' },
      });
      expect(strict.text).toBe('HALLOO WELT!');
      expect((await t.translateText('Hallo Welt!', 'de', 'en-GB', opts)).text).toBe('Hello world (en)');
    });
  }

  it('answers 404 for an unknown memory, another key’s memory and an uncovered pair', async () => {
    const h = await hub({ engines: [{ type: 'libretranslate', url: (await fake(fakeLibre())).url }] });
    const a = await h.createKey();
    const b = await h.createKey();
    const id = await imported(h, a.secret, [['Hello', { de: 'Hallo' }]]);
    const call = (secret: string, form: string) => h.call('POST', '/v2/translate', { key: secret, form });
    expect((await call(a.secret, 'text=x&target_lang=de&translation_memory_id=nope')).status).toBe(404);
    expect((await call(b.secret, `text=x&target_lang=de&translation_memory_id=${id}`)).status).toBe(404);
    const uncovered = await call(a.secret, `text=x&target_lang=fr&translation_memory_id=${id}`);
    expect([uncovered.status, uncovered.body.message]).toEqual([
      404,
      expect.stringContaining('does not cover'),
    ]);
    const auto = await call(a.secret, `text=Hello&target_lang=de&translation_memory_id=${id}`);
    expect(auto.body.translations[0]).toEqual({ detected_source_language: 'EN', text: 'Hallo' });
  });
});

describe('fuzzy scoring', () => {
  it('the bit-parallel, bounded distance equals the plain Levenshtein distance whenever it is within the limit', () => {
    const plain = (a: string, b: string) => {
      let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
      for (let i = 1; i <= a.length; i++) {
        const cur = [i];
        for (let j = 1; j <= b.length; j++) {
          cur[j] = Math.min(
            (prev[j] as number) + 1,
            (cur[j - 1] as number) + 1,
            (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
          );
        }
        prev = cur;
      }
      return prev[b.length] as number;
    };
    fc.assert(
      fc.property(
        // Up to 100 units: queries of one, two, three and four 32-row blocks.
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', 'é'), maxLength: 100 }),
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', 'é'), maxLength: 100 }),
        fc.integer({ min: 0, max: 110 }),
        (a, b, limit) => {
          const d = plain(a, b);
          const query = new QueryDistance(a);
          try {
            expect(query.distance(b, limit)).toBe(d <= limit ? d : limit + 1);
          } finally {
            query.release();
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('scores by character edit distance over the longer text, after whitespace and case', () => {
    const index = new MatchIndex(['Hallo Welt!', 'Something else entirely', 'Guten  Morgen']);
    expect(index.best('hallo   welt!', 100)).toEqual({ index: 0, score: 100 });
    expect(index.best('Halloo Welt!', 75)?.score).toBeCloseTo(91.67, 1);
    expect(index.best('Halloo Welt!', 92)).toBeNull();
    expect(index.best('Guten Abend', 50)?.index).toBe(2);
    expect(index.best('xyz', 50)).toBeNull();
  });
});
