import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DocumentFormatError } from '../../plugins/translation/documents/formats/collector.ts';
import { localFormat } from '../../plugins/translation/documents/formats/index.ts';
import { prepareDocx } from '../../plugins/translation/documents/formats/office.ts';

/** Translates a file with upper-casing, as the fake engines do. */
function roundTrip(ext: string, input: Buffer | string, target = 'DE') {
  const format = localFormat(ext);
  if (!format) throw new Error(`no format ${ext}`);
  const prepared = format.prepare(Buffer.from(input), target);
  return { cores: prepared.cores, output: prepared.finish(prepared.cores.map((c) => c.toUpperCase())) };
}

describe('document formats', () => {
  it('refuses an archive whose entries claim to unpack past the bound (a zip bomb) before inflating it', () => {
    const zip = Buffer.from(zipSync({ 'word/document.xml': strToU8('<w:document/>') }));
    // Central directory header (PK\x01\x02): the uncompressed size sits 24 bytes in.
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(0xfffffff0, central + 24);
    expect(() => prepareDocx(zip)).toThrow(DocumentFormatError);
    expect(() => prepareDocx(zip)).toThrow(/unpacks to more than 128 MiB/);
  });

  it('writes .strings back in UTF-16 with its byte-order mark, escapes and placeholders kept', () => {
    const text = '"a" = "Say \\"hi\\" to %1$@";\n';
    const input = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { output } = roundTrip('strings', input);
    expect([...output.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    expect(output.subarray(2).toString('utf16le')).toBe('"a" = "SAY \\"HI\\" TO %1$@";\n');
  });

  it('folds .properties continuation lines and keeps \\u escapes in an ASCII file', () => {
    const { cores, output } = roundTrip('properties', 'a = caf\\u00e9 and \\\n    more\nb: x\n');
    expect(cores).toEqual(['café and more', 'x']);
    expect(output.toString()).toBe('a = CAF\\u00c9 AND MORE\nb: X\n');
  });

  it('keeps YAML comments, anchors, keys and every document of a stream', () => {
    const { output } = roundTrip('yml', '# top\na: &x hello # note\nb: *x\n---\nc: world\n');
    expect(output.toString()).toBe('# top\na: &x HELLO # note\nb: *x\n---\nc: WORLD\n');
  });

  it('writes XLIFF 2.0 targets and trgLang; replaces an empty target; skips translate="no"', () => {
    const xlf =
      '<xliff version="2.0" srcLang="en"><file id="f"><unit id="1"><segment><source>Good <pc id="1">day</pc></source><target/></segment></unit><unit id="2" translate="no"><segment><source>Hearth</source></segment></unit></file></xliff>';
    const { output } = roundTrip('xliff', xlf, 'EN-GB');
    expect(output.toString()).toBe(
      '<xliff version="2.0" srcLang="en" trgLang="en-GB"><file id="f"><unit id="1"><segment><source>Good <pc id="1">day</pc></source><target>GOOD <pc id="1">DAY</pc></target></segment></unit><unit id="2" translate="no"><segment><source>Hearth</source></segment></unit></file></xliff>',
    );
  });

  it('leaves Markdown code, link targets and HTML comments alone', () => {
    const md =
      '<!-- note\nstill -->\nUse `npm start` or [the guide](https://x.test/a_b).\n\n    indented code\n';
    const { cores, output } = roundTrip('markdown', md);
    // The code span leaves its two spaces in the sentence the engine sees.
    expect(cores).toEqual(['Use  or the guide.']);
    expect(output.toString()).toContain('`npm start`');
    expect(output.toString()).toContain('](https://x.test/a_b)');
    expect(output.toString()).toContain('<!-- note\nstill -->\n');
    expect(output.toString()).toContain('    indented code\n');
  });

  it('keeps entities and script content of HTML; JSON keys stay keys', () => {
    const html = roundTrip(
      'htm',
      '<p>Tom &amp; Jerry&nbsp;run</p><script>let a = "b";</script>',
    ).output.toString();
    expect(html).toBe('<p>TOM &amp; JERRY\u00a0RUN</p><script>let a = "b";</script>');
    const json = roundTrip('json', '{"title": "title", "n": {"title": "x"}}').output.toString();
    expect(json).toBe('{"title": "TITLE", "n": {"title": "X"}}');
  });
});
