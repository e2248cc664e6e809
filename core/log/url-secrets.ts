/**
 * URL spellings the redactor must see through. A client may percent-encode any character of a path
 * (`%2F` or `%2f` for `/`, `%73` for `s`), encode it twice (`%252F`), double the slashes or use `\`;
 * routers and proxies may or may not normalise it. Redaction matches one normal spelling instead.
 */

/** A path separator, literal or percent-encoded (after `normalizePercentEncoding`). */
export const SEPARATOR = String.raw`[/\\]|%2f|%5c`;

const DOUBLE_ENCODED = /%25(?=[0-9a-f]{2})/gi;
const ENCODED_UNRESERVED = /%(2[de]|3[0-9]|[46][1-9a-f]|[57][0-9a]|5f|7e)/gi;

/**
 * Undoes repeated encoding (`%252F` → `%2F`) and decodes unreserved characters (RFC 3986 §2.3: letters,
 * digits, `-._~` mean the same encoded or not, §6.2.2.2). Reserved characters such as `%2F`, `%26` and
 * `%3D` stay encoded so a value never changes where it ends.
 */
export function normalizePercentEncoding(text: string): string {
  if (!text.includes('%')) return text;
  let out = text;
  for (let i = 0; i < 4 && DOUBLE_ENCODED.test(out); i++) out = out.replace(DOUBLE_ENCODED, '%');
  return out.replace(ENCODED_UNRESERVED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Parameter names whose values are credentials: OAuth, DeepL's `auth_key`, API keys, passwords. */
const SECRET_NAME =
  /secret|token|passw|pwd|key|auth|^code$|code_?verifier|^sig$|signature|assertion|credential|session|ticket|^otp$|^pin$/i;

/** A parameter name and its `=`, after `?`, `&`, `;` or the start of the text (a form body). */
const PARAM_NAME = /(?:^|[?&;]|%3f|%26)(?:[^=&;?#%/\s"'<>`]|%(?!3f|26|3d)[0-9a-f]{2}){1,64}?(?:=|%3d)/gi;
const PARAM_VALUE = /[^&#\s"'<>`]*/y;

/**
 * Replaces the value of every secret-named query or form parameter. The value runs to the next `&`, `#`,
 * whitespace or quote; an encoded `%26` does not end it, so an encoded secret is never cut in two.
 */
export function secretQueryValues(text: string, censor: string): string {
  if (!text.includes('=') && !/%3d/i.test(text)) return text;
  let out = '';
  let from = 0;
  PARAM_NAME.lastIndex = 0;
  for (let m = PARAM_NAME.exec(text); m; m = PARAM_NAME.exec(text)) {
    const nameEnd = PARAM_NAME.lastIndex;
    const name = m[0].replace(/^(?:[?&;]|%3f|%26)/i, '').replace(/(?:=|%3d)$/i, '');
    if (!SECRET_NAME.test(safeDecode(name))) {
      // Scanning goes on inside the value: it may be a URL with its own secret parameters.
      PARAM_NAME.lastIndex = nameEnd;
      continue;
    }
    PARAM_VALUE.lastIndex = nameEnd;
    const value = PARAM_VALUE.exec(text)?.[0] ?? '';
    if (value.length > 0) {
      out += text.slice(from, nameEnd) + censor;
      from = nameEnd + value.length;
    }
    PARAM_NAME.lastIndex = nameEnd + value.length;
  }
  return out + text.slice(from);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
