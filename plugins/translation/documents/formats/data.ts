import { isScalar, parseAllDocuments, visit } from 'yaml';
import {
  DocumentFormatError,
  MarkupCollector,
  type PreparedDocument,
  protectSpans,
  SPAN_OPTIONS,
} from './collector.ts';
import { decodeText } from './text.ts';

/** Placeholders of i18n message files: `{name}`, `{{name}}`, `%s`, `%1$d`, `${x}`. */
const PLACEHOLDERS = /\$?\{\{?[^{}\s]*\}?\}|%(?:\d+\$)?[-+ 0#]*\d*(?:\.\d+)?[sdifeEgGxXoc@%]/;
const TRANSLATABLE = /\p{L}/u;

/**
 * JSON: every string value is translated, keys and everything else stay byte for byte (the file is
 * validated by JSON.parse, then each value literal is replaced where it stands, so order and layout hold).
 */
export function prepareJson(input: Buffer): PreparedDocument {
  const decoded = decodeText(input);
  try {
    JSON.parse(decoded.text);
  } catch {
    throw new DocumentFormatError('The file is not valid JSON.');
  }
  const collector = new MarkupCollector();
  const values: Array<{ start: number; end: number; handle: number; restore(t: string): string }> = [];
  // Outside string literals JSON has no quotes, so this finds every literal in order.
  for (const m of decoded.text.matchAll(/"(?:[^"\\]|\\.)*"/g)) {
    const end = m.index + m[0].length;
    if (/^\s*:/.test(decoded.text.slice(end, end + 64))) continue; // a key
    const value = JSON.parse(m[0]) as string;
    if (!TRANSLATABLE.test(value)) continue;
    const spans = protectSpans(value, PLACEHOLDERS);
    values.push({ start: m.index, end, handle: collector.add(spans.markup, SPAN_OPTIONS), ...spans });
  }
  return {
    cores: collector.cores,
    finish(translations) {
      const results = collector.results(translations);
      let out = '';
      let at = 0;
      for (const v of values) {
        out += decoded.text.slice(at, v.start) + JSON.stringify(v.restore(results[v.handle] ?? ''));
        at = v.end;
      }
      return decoded.encode(out + decoded.text.slice(at));
    },
  };
}

/** YAML (every document of a stream): string values are translated; keys, comments, anchors and layout stay. */
export function prepareYaml(input: Buffer): PreparedDocument {
  const decoded = decodeText(input);
  const docs = parseAllDocuments(decoded.text, { keepSourceTokens: false });
  const list = Array.isArray(docs) ? docs : [docs];
  const failed = list.find((d) => d.errors.length > 0);
  if (failed || !Array.isArray(docs)) {
    throw new DocumentFormatError(`The file is not valid YAML: ${failed?.errors[0]?.message ?? ''}`.trim());
  }
  const collector = new MarkupCollector();
  const found: Array<{ node: { value: unknown }; handle: number; restore(t: string): string }> = [];
  for (const doc of list) {
    visit(doc, {
      Scalar(key, node) {
        if (key === 'key' || typeof node.value !== 'string' || !TRANSLATABLE.test(node.value)) return;
        const spans = protectSpans(node.value, PLACEHOLDERS);
        found.push({ node, handle: collector.add(spans.markup, SPAN_OPTIONS), restore: spans.restore });
      },
    });
  }
  return {
    cores: collector.cores,
    finish(translations) {
      const results = collector.results(translations);
      for (const f of found) if (isScalar(f.node)) f.node.value = f.restore(results[f.handle] ?? '');
      return decoded.encode(list.map((d) => d.toString({ lineWidth: 0 })).join(''));
    },
  };
}
