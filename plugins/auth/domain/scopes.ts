/** Space-delimited scope string to a unique list (RFC 6749 §3.3). */
export function parseScope(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return [...new Set(value.split(' ').filter((s) => s.length > 0))];
}

/** RFC 6749 §3.3 scope-token characters: %x21 / %x23-5B / %x5D-7E. */
export const isScopeToken = (s: string): boolean => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s);

export const isSubset = (wanted: readonly string[], allowed: readonly string[]): boolean =>
  wanted.every((s) => allowed.includes(s));

/** The scopes every lighting site resource offers (documented in the README). */
export const SITE_SCOPES = [
  { name: 'lights:read', description: 'Read lights, scenes, sensors and the site event stream' },
  { name: 'lights:write', description: 'Switch lights and set their state' },
  { name: 'scenes:apply', description: 'Apply existing scenes' },
  { name: 'sensors:write', description: 'Report sensor readings and button presses' },
  { name: 'schedules:write', description: 'Create, change and delete schedules' },
  { name: 'site:admin', description: 'Rename lights, edit scenes and configure the site' },
] as const;

export const TRANSLATE_SCOPE = { name: 'translate', description: 'Translate announcements' } as const;

/**
 * OpenID Connect scopes (OpenID Connect Core §3.1.2.1, §5.4). They are about the user, not about a
 * resource: every resource accepts them next to its own scopes, and a request that asks for nothing else
 * is for the built-in `userinfo` resource.
 */
export const IDENTITY_SCOPES = [
  { name: 'openid', description: 'Sign you in with your Hearth account' },
  { name: 'profile', description: 'See your name' },
  { name: 'email', description: 'See your email address' },
] as const;

export const IDENTITY_SCOPE_NAMES: readonly string[] = IDENTITY_SCOPES.map((x) => x.name);
export const isIdentityScope = (scope: string): boolean => IDENTITY_SCOPE_NAMES.includes(scope);
