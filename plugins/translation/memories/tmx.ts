import { Parser } from 'htmlparser2';

/** One translation unit: the source text and its translations by language code (lower case). */
export interface TmxUnit {
  source: string;
  targets: Map<string, string>;
}

/** Inline elements whose content is native code, not text (TMX 1.4b `bpt`, `ept`, `it`, `ph`, `ut`). */
const CODE_ELEMENTS = new Set(['bpt', 'ept', 'it', 'ph', 'ut']);

/**
 * A streaming TMX 1.4b reader: feed chunks with `write`, units arrive through `onUnit` as each `<tu>`
 * closes, so a large file never sits in memory. The source language is the header's `srclang` (a unit's
 * own `srclang` overrides it); `*all*` takes each unit's first variant. Inline codes are dropped, the text
 * inside `<hi>`/`<sub>` kept.
 */
export class TmxReader {
  sourceLanguage: string | null = null;
  private readonly parser: Parser;
  private unitSource: string | null = null;
  private variants: Array<[string, string]> = [];
  private lang: string | null = null;
  private seg: string | null = null;
  private codeDepth = 0;
  private sawTmx = false;
  error: string | null = null;
  /** Units dropped for lacking a source or any translation. */
  skipped = 0;

  constructor(private readonly onUnit: (unit: TmxUnit) => void) {
    this.parser = new Parser(
      {
        onopentag: (name, attrs) => {
          if (name === 'tmx') this.sawTmx = true;
          else if (name === 'header') this.sourceLanguage = attrs.srclang?.toLowerCase() ?? null;
          else if (name === 'tu') {
            this.unitSource = attrs.srclang?.toLowerCase() ?? null;
            this.variants = [];
          } else if (name === 'tuv') this.lang = (attrs['xml:lang'] ?? attrs.lang ?? '').toLowerCase();
          else if (name === 'seg') this.seg = '';
          else if (this.seg !== null && CODE_ELEMENTS.has(name)) this.codeDepth++;
        },
        ontext: (text) => {
          if (this.seg !== null && this.codeDepth === 0) this.seg += text;
        },
        onclosetag: (name) => {
          if (name === 'seg' && this.seg !== null) {
            if (this.lang) this.variants.push([this.lang, this.seg]);
            this.seg = null;
          } else if (this.seg !== null && CODE_ELEMENTS.has(name)) this.codeDepth--;
          else if (name === 'tu') this.closeUnit();
        },
        onerror: (err) => {
          this.error = err.message;
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  private closeUnit(): void {
    const wanted = this.unitSource ?? this.sourceLanguage;
    const sourceAt =
      wanted && wanted !== '*all*' ? this.variants.findIndex(([l]) => sameLanguage(l, wanted)) : 0;
    const source = this.variants[sourceAt];
    if (!source || source[1].trim() === '') {
      this.skipped++;
      return;
    }
    const targets = new Map<string, string>();
    this.variants.forEach(([lang, text], i) => {
      if (i !== sourceAt && text.trim() !== '' && !targets.has(lang)) targets.set(lang, text);
    });
    if (targets.size > 0) this.onUnit({ source: source[1], targets });
    else this.skipped++;
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  /** Ends the input; a file that is not TMX is an error. */
  end(): void {
    this.parser.end();
    if (!this.sawTmx && !this.error) this.error = 'the file is not TMX (no <tmx> element)';
  }
}

const root = (code: string) => code.split(/[-_]/)[0] ?? code;
const sameLanguage = (a: string, b: string) => a === b || root(a) === root(b);

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function tmxHeader(sourceLanguage: string, version: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n' +
    `  <header creationtool="Hearth" creationtoolversion="${escapeXml(version)}" segtype="sentence" ` +
    `o-tmf="hearth" adminlang="en" srclang="${escapeXml(sourceLanguage)}" datatype="plaintext" ` +
    `creationdate="${stamp}"/>\n  <body>\n`
  );
}

export function tmxUnit(sourceLanguage: string, source: string, targets: Iterable<[string, string]>): string {
  let out = `    <tu>\n      <tuv xml:lang="${escapeXml(sourceLanguage)}"><seg>${escapeXml(source)}</seg></tuv>\n`;
  for (const [lang, text] of targets) {
    out += `      <tuv xml:lang="${escapeXml(lang)}"><seg>${escapeXml(text)}</seg></tuv>\n`;
  }
  return `${out}    </tu>\n`;
}

export const TMX_FOOTER = '  </body>\n</tmx>\n';
