/**
 * The text of one member of a JSON object exactly as it was sent. `config_data` of a broker provider is
 * opaque and returned byte for byte, so it is kept as its source text rather than parsed and re-serialised
 * (which would change number precision, key order, spacing and escapes). The text must already be known to
 * be valid JSON (JSON.parse ran first); this only finds where the member's value starts and ends.
 */
export function rawMember(json: string, name: string): string | undefined {
  let i = skipWs(json, 0);
  if (json[i] !== '{') return undefined;
  i = skipWs(json, i + 1);
  let found: string | undefined;
  while (i < json.length && json[i] !== '}') {
    const keyEnd = stringEnd(json, i);
    const key = JSON.parse(json.slice(i, keyEnd)) as string;
    i = skipWs(json, keyEnd);
    i = skipWs(json, i + 1); // ':'
    const end = valueEnd(json, i);
    // JSON.parse keeps the last of duplicate members; so do we.
    if (key === name) found = json.slice(i, end);
    i = skipWs(json, end);
    if (json[i] === ',') i = skipWs(json, i + 1);
  }
  return found;
}

function skipWs(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  return i;
}

/** Index just past the string starting at `i` (which is a `"`). */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  return s.length;
}

/** Index just past the value starting at `i`. */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return stringEnd(s, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const x = s[j];
      if (x === '"') j = stringEnd(s, j) - 1;
      else if (x === '{' || x === '[') depth++;
      else if (x === '}' || x === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return s.length;
  }
  let j = i;
  while (j < s.length && !',}] \t\n\r'.includes(s[j]!)) j++;
  return j;
}
