import { invalid } from '../errors.ts';

/** One dictionary's entries in insertion order (source term → target term). */
export type Entries = Map<string, string>;

/** Per term and per glossary name (spec Limits: 1024 UTF-8 bytes). */
export const MAX_TERM_BYTES = 1024;

/**
 * The term rules DeepL's clients enforce (deepl-node `validateGlossaryTerm`): not empty, no C0/C1 control
 * characters, no U+2028/U+2029. A term a client would refuse to read back must never be stored.
 */
export function checkTerm(term: string): void {
  if (term.length === 0) throw invalid('Invalid glossary entries: a term is empty.');
  if (/[\p{Cc}\u2028\u2029]/u.test(term)) {
    throw invalid(`Invalid glossary entries: the term '${term.slice(0, 50)}' contains a control character.`);
  }
  if (Buffer.byteLength(term) > MAX_TERM_BYTES) {
    throw invalid(`Invalid glossary entries: a term exceeds ${MAX_TERM_BYTES} UTF-8 bytes.`);
  }
}

function add(entries: Entries, source: string, target: string): void {
  // DeepL trims the whitespace around terms; the client's own parser would keep it, so the stored form is trimmed.
  const s = source.trim();
  const t = target.trim();
  checkTerm(s);
  checkTerm(t);
  if (entries.has(s)) throw invalid(`Invalid glossary entries: duplicate source term '${s.slice(0, 50)}'.`);
  entries.set(s, t);
}

/** `source<TAB>target` per line; blank lines are skipped. */
export function parseTsv(text: string): Entries {
  const entries: Entries = new Map();
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line.trim() === '') continue;
    const cells = line.split('\t');
    if (cells.length !== 2) {
      throw invalid(
        `Invalid glossary entries: the line '${line.slice(0, 50)}' must hold one source and one target term separated by a tab.`,
      );
    }
    add(entries, cells[0] ?? '', cells[1] ?? '');
  }
  return entries;
}

/** RFC 4180 rows: quoted fields may hold commas, quotes (doubled) and line breaks. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = '';
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      endField();
      rows.push(row);
      row = [];
      if (c === '\r' && text[i + 1] === '\n') i++;
    } else field += c;
    i++;
  }
  if (quoted) throw invalid('Invalid glossary entries: a quoted CSV field is not closed.');
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/**
 * CSV with two columns, or four with the row's own `source_lang,target_lang`: rows of another pair are
 * ignored (DeepL's rule), so one file can feed several dictionaries.
 */
export function parseCsv(text: string, source: string, target: string): Entries {
  const entries: Entries = new Map();
  for (const row of csvRows(text)) {
    if (row.length !== 2 && row.length !== 4) {
      throw invalid('Invalid glossary entries: a CSV row must have 2 or 4 columns.');
    }
    if (row.length === 4) {
      const [, , s = '', t = ''] = row;
      if (s.trim().toLowerCase() !== source || t.trim().toLowerCase() !== target) continue;
    }
    add(entries, row[0] ?? '', row[1] ?? '');
  }
  return entries;
}

export function parseEntries(text: string, format: string, source: string, target: string): Entries {
  if (format === 'tsv') return parseTsv(text);
  if (format === 'csv') return parseCsv(text, source, target);
  throw invalid("Value for 'entries_format' not supported (tsv or csv).");
}

export function toTsv(entries: Iterable<readonly [string, string]>): string {
  return [...entries].map(([s, t]) => `${s}\t${t}`).join('\n');
}

/** UTF-8 size of the entries as TSV (the glossary size limit counts this). */
export function entriesBytes(entries: Iterable<readonly [string, string]>): number {
  let n = 0;
  for (const [s, t] of entries) n += Buffer.byteLength(s) + Buffer.byteLength(t) + 2;
  return n;
}
