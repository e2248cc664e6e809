/**
 * Scrubs secrets from every serialised log line before it is written. Field-level redaction (pino's
 * `redact`) covers known keys; this covers secrets that travel inside strings: site keys in URL paths,
 * bearer tokens, JWTs, and literal values plugins register (upstream API keys from config).
 */
export const REDACTED = '[REDACTED]';

const builtinPaths: RegExp[] = [
  // Site keys travel in the path of every site call and of the web UI (spec: /api/site/<site_key>).
  /\/site\/([^/?#\s"\\]+)/g,
];

const builtinPatterns: RegExp[] = [
  /(?<=\b(?:Bearer|DeepL-Auth-Key|Basic)\s+)[A-Za-z0-9._~+/=:-]+/gi,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // Query parameters that carry credentials; `auth_key` is DeepL's legacy way of sending an API key.
  /(?<=[?&](?:access_token|refresh_token|code|token|key|auth_key|api_key|apikey|sitekey|site_key|password|client_secret)=)[^&\s"#]+/gi,
];

export class Redactor {
  private readonly values = new Set<string>();
  private readonly paths: RegExp[] = [...builtinPaths];
  private valuePattern: RegExp | null = null;

  addValue(secret: string): void {
    // Very short values would scrub ordinary words; they are not secrets worth the name anyway.
    if (secret.length < 6 || this.values.has(secret)) return;
    this.values.add(secret);
    const escaped = [...this.values].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.valuePattern = new RegExp(escaped.join('|'), 'g');
  }

  addPath(pattern: RegExp): void {
    const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
    this.paths.push(new RegExp(pattern.source, flags));
  }

  scrub(line: string): string {
    let out = line;
    if (this.valuePattern) out = out.replace(this.valuePattern, REDACTED);
    for (const re of this.paths) {
      out = out.replace(re, (match, secret: string | undefined) =>
        secret ? match.replace(secret, REDACTED) : REDACTED,
      );
    }
    for (const re of builtinPatterns) out = out.replace(re, REDACTED);
    return out;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
