import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../core/http/errors.ts';
import { formParams, parseParams, readBody } from '../../plugins/translation/request/body.ts';
import { parseTranslateRequest } from '../../plugins/translation/request/translate-params.ts';

const json = (values: Record<string, unknown>) => parseTranslateRequest({ kind: 'json', values });
const form = (query: string) => parseTranslateRequest(formParams(query));

function rejection(run: () => unknown): { status: number; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('translate request parsing', () => {
  it('reads the form exactly as deepl-node sends it', () => {
    const texts = Array.from({ length: 50 }, (_, i) => `text=t${i}`).join('&');
    const req = form(
      `target_lang=de&source_lang=en&formality=prefer_more&show_billed_characters=1&${texts}` +
        '&split_sentences=nonewlines&preserve_formatting=0&tag_handling=xml&outline_detection=0' +
        '&non_splitting_tags=a,b&splitting_tags=p&ignore_tags=x,y&custom_instructions=Be%20brief' +
        '&custom_instructions=No%20slang&glossary_ids=g1,g2&model_type=latency_optimized',
    );
    expect(req.texts).toHaveLength(50);
    expect(req.texts[49]).toBe('t49');
    expect(req.target).toBe('DE');
    expect(req.source).toBe('EN');
    expect(req.showBilledCharacters).toBe(true);
    expect(req.preserveFormatting).toBe(false);
    expect(req.splitSentences).toBe('nonewlines');
    expect(req.customInstructions).toEqual(['Be brief', 'No slang']);
    expect(req.glossaryIds).toEqual(['g1', 'g2']);
    expect(req.modelType).toBe('latency_optimized');
    expect(req.tags).toEqual({
      mode: 'xml',
      version: 'v2',
      outlineDetection: false,
      splittingTags: ['p'],
      nonSplittingTags: ['a', 'b'],
      ignoreTags: ['x', 'y'],
    });
  });

  it('reads JSON with typed values and a single text string', () => {
    const req = json({
      text: 'Hello',
      target_lang: 'en-us',
      show_billed_characters: true,
      ignore_tags: ['x'],
    });
    expect(req).toMatchObject({
      texts: ['Hello'],
      target: 'EN-US',
      source: null,
      showBilledCharacters: true,
    });
    expect(json({ text: ['a'], target_lang: 'EN' }).target).toBe('EN-GB');
    expect(
      json({ text: ['a'], target_lang: 'de', glossary_ids: 'a,b', source_lang: 'en' }).glossaryIds,
    ).toEqual(['a', 'b']);
    expect(form('text=a&target_lang=de&glossary_ids=a&glossary_ids=b&source_lang=en').glossaryIds).toEqual([
      'a',
      'b',
    ]);
  });

  it('gh-review: accepts style_id and tag_handling_version as deepl-node sends them, in its form', () => {
    const req = form('text=a&target_lang=de&tag_handling=xml&tag_handling_version=v1&style_id=s1');
    expect(req.styleId).toBe('s1');
    expect(req.tags?.version).toBe('v1');
    expect(json({ text: 'a', target_lang: 'de', style_id: 's2' }).styleId).toBe('s2');
  });

  it('treats a translation memory threshold below 50 as 50', () => {
    expect(form('text=a&target_lang=de&translation_memory_threshold=10').translationMemoryThreshold).toBe(50);
    expect(
      json({ text: ['a'], target_lang: 'de', translation_memory_threshold: 90 }).translationMemoryThreshold,
    ).toBe(90);
  });

  const cases: Array<[string, () => unknown, RegExp]> = [
    ['missing text', () => form('target_lang=de'), /'text' not specified/],
    ['more than 50 texts', () => form(`target_lang=de&${'text=a&'.repeat(51)}`), /at most 50/],
    ['text of the wrong type', () => json({ text: [1], target_lang: 'de' }), /'text'/],
    ['missing target_lang', () => form('text=a'), /'target_lang' not specified/],
    ['unknown target_lang', () => form('text=a&target_lang=xx'), /'target_lang' not supported/],
    [
      'unknown source_lang',
      () => form('text=a&target_lang=de&source_lang=en-us'),
      /'source_lang' not supported/,
    ],
    ['bad formality', () => form('text=a&target_lang=de&formality=polite'), /'formality'/],
    [
      'formality on a target without it',
      () => form('text=a&target_lang=en-us&formality=more'),
      /'EN-US' doesn't support formality/,
    ],
    ['bad model_type', () => form('text=a&target_lang=de&model_type=fast'), /'model_type'/],
    ['bad split_sentences', () => form('text=a&target_lang=de&split_sentences=2'), /'split_sentences'/],
    ['bad boolean', () => form('text=a&target_lang=de&preserve_formatting=yes'), /'preserve_formatting'/],
    [
      'bad JSON boolean',
      () => json({ text: 'a', target_lang: 'de', show_billed_characters: 'y' }),
      /show_billed/,
    ],
    ['bad tag_handling', () => form('text=a&target_lang=de&tag_handling=json'), /'tag_handling'/],
    [
      'bad tag_handling_version',
      () => json({ text: 'a', target_lang: 'de', tag_handling: 'xml', tag_handling_version: 'v3' }),
      /'tag_handling_version'/,
    ],
    [
      'tag_handling_version twice in a form',
      () => form('text=a&target_lang=de&tag_handling=xml&tag_handling_version=v1&tag_handling_version=v2'),
      /'tag_handling_version' may be given only once/,
    ],
    [
      'style_id twice in a form',
      () => form('text=a&target_lang=de&style_id=s&style_id=t'),
      /'style_id' may be given only once/,
    ],
    [
      'a bad tag_handling_version in a form',
      () => form('text=a&target_lang=de&tag_handling=xml&tag_handling_version=v3'),
      /'tag_handling_version' not supported/,
    ],
    [
      'target_lang twice',
      () => form('text=a&target_lang=de&target_lang=fr'),
      /'target_lang' may be given only once/,
    ],
    [
      'glossary_id with glossary_ids',
      () => form('text=a&target_lang=de&source_lang=en&glossary_id=g&glossary_ids=h'),
      /'glossary_id' and 'glossary_ids'/,
    ],
    [
      'six glossaries',
      () => form('text=a&target_lang=de&source_lang=en&glossary_ids=1,2,3,4,5,6'),
      /'glossary_ids' accepts at most 5/,
    ],
    [
      'glossary without source',
      () => form('text=a&target_lang=de&glossary_id=g'),
      /'source_lang' is required/,
    ],
    [
      'glossaries without source',
      () => json({ text: 'a', target_lang: 'de', glossary_ids: ['g'] }),
      /'source_lang'/,
    ],
    [
      'eleven instructions',
      () => json({ text: 'a', target_lang: 'de', custom_instructions: Array(11).fill('x') }),
      /'custom_instructions' accepts at most 10/,
    ],
    [
      'an instruction over 300 characters',
      () => json({ text: 'a', target_lang: 'de', custom_instructions: ['x'.repeat(301)] }),
      /at most 300 characters/,
    ],
    [
      'instructions for an unsupported target',
      () => form('text=a&target_lang=nl&custom_instructions=Be%20brief'),
      /'custom_instructions' is not supported for target language 'NL'/,
    ],
    [
      'threshold out of range',
      () => form('text=a&target_lang=de&translation_memory_threshold=101'),
      /'translation_memory_threshold'/,
    ],
    [
      'threshold not a number',
      () => json({ text: 'a', target_lang: 'de', translation_memory_threshold: 'high' }),
      /'translation_memory_threshold'/,
    ],
    [
      'tag list of the wrong type',
      () => json({ text: 'a', target_lang: 'de', ignore_tags: [1] }),
      /'ignore_tags'/,
    ],
    ['bad enable_beta_languages', () => form('text=a&target_lang=de&enable_beta_languages=x'), /enable_beta/],
  ];
  for (const [name, run, message] of cases) {
    it(`rejects ${name} with 400`, () => {
      const { status, message: text } = rejection(run);
      expect(status).toBe(400);
      expect(text).toMatch(message);
    });
  }
  it('accepts 300 characters and 10 instructions exactly', () => {
    const req = json({
      text: 'a',
      target_lang: 'en-gb',
      custom_instructions: Array(10).fill('x'.repeat(300)),
    });
    expect(req.customInstructions).toHaveLength(10);
  });
});

describe('request bodies', () => {
  const stream = (body: string, headers: Record<string, string> = {}) =>
    Object.assign(Readable.from([Buffer.from(body)]), { headers }) as unknown as IncomingMessage;

  it('refuses a body over 128 KiB with 413, declared or streamed', async () => {
    const big = 'x'.repeat(128 * 1024 + 1);
    await expect(readBody(stream(big))).rejects.toMatchObject({ status: 413 });
    await expect(readBody(stream('x', { 'content-length': String(big.length) }))).rejects.toMatchObject({
      status: 413,
    });
    expect((await readBody(stream('x'.repeat(128 * 1024)))).length).toBe(128 * 1024);
  });

  it('parses JSON and forms, refusing other media types and broken JSON', () => {
    expect(parseParams('application/json; charset=utf-8', Buffer.from('{"a":1}'))).toEqual({
      kind: 'json',
      values: { a: 1 },
    });
    expect(() => parseParams('application/json', Buffer.from('{'))).toThrow(/not valid JSON/);
    expect(() => parseParams('application/json', Buffer.from('[1]'))).toThrow(/JSON object/);
    expect(() => parseParams('text/plain', Buffer.from('a'))).toThrow(HttpError);
    const parsed = parseParams('application/x-www-form-urlencoded', Buffer.from('text=a&text=b'));
    expect(parsed.kind === 'form' && parsed.values.get('text')).toEqual(['a', 'b']);
  });
});
