const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export const isLoopbackHttp = (u: URL): boolean => u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);

// A loopback IP literal with an optional port, then the rest of the URI as sent (RFC 8252 §7.3).
const LOOPBACK_LITERAL = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?(?=[/?]|$)/;

/** The URI without the port of its loopback IP literal, or null when it has no such authority. */
function withoutLoopbackPort(uri: string): string | null {
  const m = LOOPBACK_LITERAL.exec(uri);
  if (!m) return null;
  if (m[2] !== undefined && Number(m[2]) > 65535) return null;
  return `http://${m[1]}${uri.slice(m[0].length)}`;
}

/**
 * Exact string matching (RFC 9700 §4.1.3), except that the port of a loopback IP literal may differ
 * (RFC 8252 §7.3). Nothing is normalised first: `127.1`, `user@127.0.0.1`, `/x/../cb`, a different case
 * or encoding are different URIs. `localhost` is matched exactly (RFC 8252 §8.3 advises against it).
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const p = withoutLoopbackPort(presented);
  return p !== null && registered.some((r) => withoutLoopbackPort(r) === p);
}

/**
 * Redirect URIs a client may register. `web`: https only and never loopback; `native`: loopback http,
 * https, or a private-use scheme (RFC 8252 §7.1). Fragments are never allowed (RFC 6749 §3.1.2).
 * Returns the reason a URI is refused, or null.
 */
export function redirectUriProblem(uri: string, applicationType: 'web' | 'native'): string | null {
  const u = parse(uri);
  if (!u) return `redirect URI is not an absolute URI: ${uri}`;
  if (u.hash || uri.includes('#')) return 'redirect URIs must not contain a fragment';
  if (u.username || u.password) return 'redirect URIs must not contain user information';
  if (applicationType === 'web') {
    if (u.protocol !== 'https:') return 'web clients need https redirect URIs';
    if (LOOPBACK_HOSTS.has(u.hostname)) return 'web clients cannot use loopback redirect URIs';
    return null;
  }
  if (u.protocol === 'http:') return isLoopbackHttp(u) ? null : 'http redirect URIs must be loopback';
  if (u.protocol === 'https:') return null;
  // RFC 8252 §7.1: private-use schemes are reverse domain names, e.g. com.example.app:/cb
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(u.protocol)
    ? null
    : `unsupported redirect URI scheme ${u.protocol}`;
}
