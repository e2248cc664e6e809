import { describe, expect, it } from 'vitest';
import type { TagOptions } from '../../plugins/translation/request/types.ts';
import { prepareMarkup, translateMarkup } from '../../plugins/translation/tags/markup.ts';

const opts = (o: Partial<TagOptions> = {}): TagOptions => ({
  mode: 'xml',
  version: 'v2',
  outlineDetection: true,
  splittingTags: [],
  nonSplittingTags: [],
  ignoreTags: [],
  ...o,
});

/** A plain-text "engine" that upper-cases, and records what it was asked. */
function upper() {
  const seen: string[] = [];
  const translate = async (texts: string[]) => {
    seen.push(...texts);
    return texts.map((t) => ({ text: t.toUpperCase(), detectedSource: 'EN' }));
  };
  return { seen, translate };
}

const run = async (markup: string, o: TagOptions) => {
  const engine = upper();
  const [result] = await translateMarkup([prepareMarkup(markup, o)], engine.translate);
  return { text: result?.text, seen: engine.seen };
};

describe('tag handling for engines without tags', () => {
  it('keeps XML structure byte for byte and translates each run', async () => {
    const src =
      '<doc lang="en"><title>Washing machine</title><p>It has <x a=\'1\'/>finished &amp; dried.</p></doc>';
    const { text, seen } = await run(src, opts());
    expect(text).toBe(
      '<doc lang="en"><title>WASHING MACHINE</title><p>IT HAS <x a=\'1\'/>FINISHED &amp; DRIED.</p></doc>',
    );
    expect(seen).toEqual(['Washing machine', 'It has', 'finished & dried.']);
  });

  it('leaves ignore_tags content and translate="no" untranslated', async () => {
    const src = '<p>Call <name>Anna Berg</name> now</p><p translate="no">Keep me</p>';
    const { text, seen } = await run(src, opts({ ignoreTags: ['name'] }));
    expect(text).toBe('<p>CALL <name>Anna Berg</name> NOW</p><p translate="no">Keep me</p>');
    expect(seen).not.toContain('Anna Berg');
    expect(seen).not.toContain('Keep me');
  });

  it('joins runs across non_splitting_tags into one sentence and spreads the words back', async () => {
    const src = '<p>The <b>washing</b> machine has finished</p>';
    const joined = await run(src, opts({ nonSplittingTags: ['b'] }));
    expect(joined.seen).toEqual(['The washing machine has finished']);
    expect(joined.text).toBe('<p>THE <b>WASHING</b> MACHINE HAS FINISHED</p>');
    const split = await run(src, opts());
    expect(split.seen).toEqual(['The', 'washing', 'machine has finished']);
  });

  it('gh-review: with outline_detection=0 only splitting_tags split XML sentences', async () => {
    const src = '<doc><s>The <b>machine</b> is done.</s><s>Take the <i>laundry</i> out.</s></doc>';
    const off = await run(src, opts({ outlineDetection: false, splittingTags: ['s'] }));
    expect(off.seen).toEqual(['The machine is done.', 'Take the laundry out.']);
    expect(off.text).toBe('<doc><s>THE <b>MACHINE</b> IS DONE.</s><s>TAKE THE <i>LAUNDRY</i> OUT.</s></doc>');
    const on = await run(src, opts());
    expect(on.seen).toEqual(['The', 'machine', 'is done.', 'Take the', 'laundry', 'out.']);
  });

  it('splits HTML at block elements, not inline ones, and honours splitting_tags and notranslate', async () => {
    const src =
      '<div><p>Hello <em>dear</em> friend</p><p class="x notranslate">Brand</p><script>var a;</script></div>';
    const html = await run(src, opts({ mode: 'html' }));
    expect(html.seen).toEqual(['Hello dear friend']);
    expect(html.text).toBe(
      '<div><p>HELLO <em>DEAR</em> FRIEND</p><p class="x notranslate">Brand</p><script>var a;</script></div>',
    );
    const forced = await run(src, opts({ mode: 'html', splittingTags: ['em'] }));
    expect(forced.seen).toEqual(['Hello', 'dear', 'friend']);
  });

  it('matches tag options to HTML elements case-insensitively (HTML names are; XML names are not)', async () => {
    const src = '<p>Call <NAME>Anna Berg</NAME> now</p>';
    const html = await run(src, opts({ mode: 'html', ignoreTags: ['Name'], nonSplittingTags: ['NAME'] }));
    expect(html.text).toBe('<p>CALL <NAME>Anna Berg</NAME> NOW</p>');
    expect(html.seen).not.toContain('Anna Berg');
    const xml = await run('<p>Call <NAME>Anna Berg</NAME> now</p>', opts({ ignoreTags: ['name'] }));
    expect(xml.seen).toContain('Anna Berg');
  });

  it('keeps the space between translated words where a formatting change falls inside a word', async () => {
    // A tag that starts or ends inside a word (`<b>Wash</b>ing`) has no whitespace at the run boundary, but
    // the translation's words that land on either side of it are still separate words.
    const html = opts({ mode: 'html' });
    expect((await run('<p><b>Wash</b>ing machine done</p>', html)).text).toBe(
      '<p><b>WASHING</b> MACHINE DONE</p>',
    );
    expect((await run('<b>Hello</b>world', html)).text).toBe('<b>HELLOWORLD</b>');
    const words = async (markup: string, translated: string) => {
      const [result] = await translateMarkup([prepareMarkup(markup, html)], async (texts) =>
        texts.map(() => ({ text: translated, detectedSource: 'EN' })),
      );
      return result?.text;
    };
    expect(await words('<b>Hello</b>world', 'Hallo Welt')).toBe('<b>Hallo</b> Welt');
    expect(await words('Hello <b>world</b>', 'Hallo Welt')).toBe('Hallo <b>Welt</b>');
    expect(await words('Hello<i> </i><b>world</b>', 'Hallo Welt')).toBe('Hallo<i> </i><b>Welt</b>');
    expect(await words('<b>Hel</b><i>lo</i>world', 'Hallo schöne Welt')).toBe(
      '<b>Hallo</b><i> schöne</i> Welt',
    );
  });

  it('escapes translated text so it cannot inject markup', async () => {
    const engine = async (texts: string[]) => texts.map(() => ({ text: 'a <b> & c', detectedSource: null }));
    const [result] = await translateMarkup([prepareMarkup('<p>x</p>', opts())], engine);
    expect(result?.text).toBe('<p>a &lt;b&gt; &amp; c</p>');
  });

  it('keeps entity references the XML parser cannot decode as they were written', async () => {
    const engine = async (texts: string[]) =>
      texts.map((t) => ({ text: t.replace('Hello', 'Hallo').replace('Tom', 'Tim'), detectedSource: 'EN' }));
    const texts = ['<p>Hello&nbsp;world &lt;Tom &amp; Jerry&gt; &#x41;</p>', '<p>Hello &amp;nbsp;</p>'];
    const xml = await translateMarkup(
      texts.map((t) => prepareMarkup(t, opts())),
      engine,
    );
    expect(xml.map((r) => r.text)).toEqual([
      '<p>Hallo&nbsp;world &lt;Tim &amp; Jerry&gt; A</p>',
      '<p>Hallo &amp;nbsp;</p>', // an escaped ampersand stays escaped
    ]);
    // HTML decodes &nbsp; itself: the character comes back, not a reference.
    const [html] = await translateMarkup(
      [prepareMarkup('<p>Hello&nbsp;world</p>', opts({ mode: 'html' }))],
      engine,
    );
    expect(html?.text).toBe('<p>Hallo\u00a0world</p>');
  });

  it('does not call the engine when there is nothing to translate', async () => {
    const { text, seen } = await run('<p> 42? </p><!-- note --><x/>', opts({ mode: 'xml' }));
    expect(seen).toEqual(['42?']);
    expect(text).toBe('<p> 42? </p><!-- note --><x/>');
    const empty = await run('<a>  </a><b>!</b>', opts());
    expect(empty.seen).toEqual([]);
    expect(empty.text).toBe('<a>  </a><b>!</b>');
  });

  it('refuses malformed XML with tag_handling_version v2 and tolerates it with v1', () => {
    for (const bad of ['<a>b</c></a>', '<a><b>x</a>', '<a>open']) {
      expect(() => prepareMarkup(bad, opts())).toThrow(/invalid XML/);
      expect(() => prepareMarkup(bad, opts({ version: 'v1' }))).not.toThrow();
    }
    expect(() => prepareMarkup('<a>fine<b/></a> tail', opts())).not.toThrow();
    expect(() => prepareMarkup('<p>loose <br> html', opts({ mode: 'html' }))).not.toThrow();
  });
});
