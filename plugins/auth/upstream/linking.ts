import type { UpstreamProviderConfig } from '../config.ts';
import { newId } from '../domain/secrets.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { User } from '../state/model.ts';
import type { IdTokenClaims } from './id-token.ts';
import { linkKey, type UpstreamLink } from './model.ts';

export type LinkOutcome =
  | { user: User; rule: 'linked' | 'verified_email' | 'created' }
  | { refused: 'disabled' | 'no_account' | 'email_taken' };

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/**
 * The account-linking rules (plugins/auth/README.md "Upstream OpenID login"), in order:
 * 1. (iss, sub) already linked: that user — the only identity an upstream sign-in ever proves;
 * 2. the provider allows `link_verified_email` and the ID token says `email_verified: true`: the local user
 *    with that email (case-insensitive), linked from now on;
 * 3. the provider allows `create_users`: a new user (`provider: oidc`, no password), linked;
 * 4. otherwise no sign-in. An unverified email never links, and never creates a second account with an
 *    email a local user already has.
 */
export async function linkAccount(
  s: AuthServices,
  provider: UpstreamProviderConfig,
  claims: IdTokenClaims,
): Promise<LinkOutcome> {
  const key = linkKey(claims.iss, claims.sub);
  const link = own(s.upstream.data.links, key);
  if (link) {
    const user = own(s.data.data.users, link.user_id);
    if (user) return user.status === 'active' ? { user, rule: 'linked' } : { refused: 'disabled' };
    // The user was deleted: the link is stale, and the rules below decide afresh.
    await s.upstream.commit((d) => {
      delete d.links[key];
    });
  }
  const email = claims.email && EMAIL.test(claims.email) ? claims.email : undefined;
  const sameEmail = email
    ? Object.values(s.data.data.users).find((u) => u.email.toLowerCase() === email.toLowerCase())
    : undefined;
  const save = (user_id: string, rule: UpstreamLink['rule']) =>
    s.upstream.commit((d) => {
      d.links[key] = {
        iss: claims.iss,
        sub: claims.sub,
        user_id,
        provider_id: provider.id,
        rule,
        created_at: nowIso(),
      };
    });
  if (sameEmail && provider.link_verified_email && claims.email_verified === true) {
    if (sameEmail.status !== 'active') return { refused: 'disabled' };
    await save(sameEmail.id, 'verified_email');
    return { user: sameEmail, rule: 'verified_email' };
  }
  if (!provider.create_users) return { refused: 'no_account' };
  if (sameEmail) return { refused: 'email_taken' };
  const now = nowIso();
  const user: User = {
    id: newId(),
    email: email ?? '',
    name: claims.name?.slice(0, 200) ?? email ?? claims.sub.slice(0, 200),
    role: 'user',
    status: 'active',
    provider: 'oidc',
    // No local password: argon2 verification of an empty hash always fails.
    password_hash: '',
    created_at: now,
    updated_at: now,
  };
  await s.data.commit((d) => {
    d.users[user.id] = user;
  });
  await save(user.id, 'created');
  return { user, rule: 'created' };
}
