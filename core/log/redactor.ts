/**
 * Scrubs secrets from every serialised log line before it is written. Field-level redaction (pino's
 * `redact`) covers known keys; this covers secrets that travel inside strings: site keys in URL paths,
 * secret-named query parameters, bearer tokens, JWTs, and literal values plugins register (upstream API
 * keys from config). See docs/logging.md.
 */
import { normalizePercentEncoding, SEPARATOR, secretQueryValues } from './url-secrets.ts';

export const REDACTED = '[REDACTED]';

/**
 * A site key follows a `site` path segment (`/site/<key>`, `/api/site/<key>`, `/mqtt/site/<key>`), however
 * the client spelled the slashes: `%2F`, `%2f`, `//`, `\`, or `/./`. It ends where a path segment ends.
 */
const siteKeyPath = new RegExp(
  `(?<=(?:^|${SEPARATOR})site(?:${SEPARATOR})+(?:\\.{1,2}(?:${SEPARATOR})+)*)` +
    `(?:(?!%(?:2f|5c|3f|23))[^/\\\\?#\\s"'<>\`])+`,
  'gi',
);

const builtinPatterns: RegExp[] = [
  siteKeyPath,
  /(?<=\b(?:Bearer|DeepL-Auth-Key|Basic)\s+)[A-Za-z0-9._~+/=:-]+/gi,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
];

/** Where a secret captured by a plugin's path pattern must end: it is one URL path segment at most. */
const SEGMENT_END = /[\s"'<>`\\]/;

/** A JSON string literal in a serialised log line. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * How many short-lived values (tokens a plugin seals or opens, one per grant and refresh) are kept for
 * scrubbing: the most recently used ones, so the set stays bounded on a hub that runs for months.
 */
export const RECENT_VALUES_MAX = 1000;

export class Redactor {
  /** Values for the life of the process: keys, passwords, configured and stored secrets. */
  private readonly values = new Set<string>();
  /** Short-lived values, most recently used last. */
  private readonly recent = new Set<string>();
  private readonly paths: RegExp[] = [];
  private valuePattern: RegExp | null = null;
  /** The pattern is rebuilt on the next scrub, not on every addition. */
  private stale = false;

  /**
   * Scrubs `secret` from every later log line. `recent` marks a value that matters only while in use
   * (a sealed upstream token): only the RECENT_VALUES_MAX most recently added ones are kept.
   */
  addValue(secret: string, lifetime: 'process' | 'recent' = 'process'): void {
    // Very short values would scrub ordinary words; they are not secrets worth the name anyway.
    if (secret.length < 6 || this.values.has(secret)) return;
    if (lifetime === 'process') {
      this.recent.delete(secret);
      this.values.add(secret);
    } else {
      if (this.recent.delete(secret)) {
        this.recent.add(secret); // now the most recent; the pattern is unchanged
        return;
      }
      this.recent.add(secret);
      if (this.recent.size > RECENT_VALUES_MAX)
        this.recent.delete(this.recent.values().next().value as string);
    }
    this.stale = true;
  }

  /** How many values are scrubbed (for tests and the bound above). */
  valueCount(): number {
    return this.values.size + this.recent.size;
  }

  private pattern(): RegExp | null {
    if (this.stale) {
      this.stale = false;
      // A value may also travel percent-encoded (in a URL or a form body).
      const spellings = [...this.values, ...this.recent].flatMap((v) => [v, encodeURIComponent(v)]);
      const escaped = [...new Set(spellings)].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.valuePattern = escaped.length > 0 ? new RegExp(escaped.join('|'), 'g') : null;
    }
    return this.valuePattern;
  }

  /** `pattern`'s first capture group is a secret (or the whole match when it has none). */
  addPath(pattern: RegExp): void {
    const flags = new Set([...pattern.flags, 'g', 'd']);
    this.paths.push(new RegExp(pattern.source, [...flags].join('')));
  }

  /**
   * Scrubs one serialised JSON log line. Each string literal is decoded, scrubbed and encoded again, so
   * a pattern can never run across a closing quote, an escape or the newline: the line stays valid JSON.
   */
  scrubJsonLine(line: string): string {
    return line.replace(JSON_STRING, (literal) => {
      const text = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
      const clean = this.scrub(text);
      return clean === text ? literal : JSON.stringify(clean);
    });
  }

  /** Scrubs free text (an error message, a decoded log string). */
  scrub(text: string): string {
    // Match on one spelling of the URL: `%73ite%252F<key>` and `/site/<key>` must look alike.
    const normal = normalizePercentEncoding(text);
    if (normal !== text) {
      const cleaned = this.scrubSpelling(normal);
      if (cleaned !== normal) return cleaned;
    }
    return this.scrubSpelling(text);
  }

  private scrubSpelling(text: string): string {
    let out = text;
    const values = this.pattern();
    if (values) out = out.replace(values, REDACTED);
    // Built-in patterns first: they know every spelling of a URL, a plugin's pattern may know only one.
    for (const re of builtinPatterns) out = out.replace(re, REDACTED);
    for (const re of this.paths) out = redactCaptured(out, re);
    return secretQueryValues(out, REDACTED);
  }
}

/** Replaces each match's first group, cut at the end of its path segment; scanning resumes right after. */
function redactCaptured(text: string, re: RegExp): string {
  let out = '';
  let from = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const span = m.indices?.[1] ?? m.indices?.[0];
    if (!span || span[1] === span[0]) {
      re.lastIndex = Math.max(re.lastIndex, m.index + 1);
      continue;
    }
    const [start, groupEnd] = span;
    const cut = text.slice(start, groupEnd).search(SEGMENT_END);
    const end = cut === -1 ? groupEnd : start + cut;
    if (end > start) {
      out += text.slice(from, start) + REDACTED;
      from = end;
    }
    re.lastIndex = Math.max(end, m.index + 1);
  }
  return out + text.slice(from);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
