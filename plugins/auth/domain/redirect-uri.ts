const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export const isLoopbackHttp = (u: URL): boolean => u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);

/**
 * Exact string matching, except that a registered loopback redirect URI matches any port
 * (RFC 9700 §2.1, RFC 8252 §7.3).
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const p = parse(presented);
  if (!p || !isLoopbackHttp(p)) return false;
  return registered.some((r) => {
    const u = parse(r);
    if (!u || !isLoopbackHttp(u)) return false;
    return (
      u.hostname === p.hostname &&
      u.pathname === p.pathname &&
      u.search === p.search &&
      u.hash === '' &&
      p.hash === ''
    );
  });
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
