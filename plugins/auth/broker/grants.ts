import { newId } from '../domain/secrets.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { BrokerGrant, UpstreamCredentials } from './model.ts';

/** Sealed by the core's secrets facility (docs/secrets.md): AES-256-GCM, the grant id bound as context. */
export const ENC_BACKEND = 'aes-256-gcm';

const context = (g: { id: string }, field: string) => `broker-grant:${g.id}/${field}`;

/**
 * What `credentials_sealed` holds: each token sealed on its own, so each is known to the log redaction
 * by itself (a token alone in a log line is scrubbed, not only the whole set).
 */
interface SealedCredentials {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  expires_at?: number;
}

/** `BrokerGrantView`: the credentials are never part of it. */
export const brokerGrantView = (g: BrokerGrant) => ({
  id: g.id,
  user_id: g.user_id,
  broker_provider_id: g.broker_provider_id,
  scopes_granted: g.scopes_granted,
  version: g.version,
  enc_backend: g.enc_backend,
  created_at: g.created_at,
  updated_at: g.updated_at,
  ...(g.revoked_at ? { revoked_at: g.revoked_at } : {}),
});

export const grantsOfUser = (s: AuthServices, userId: string): BrokerGrant[] =>
  Object.values(s.broker.data.grants)
    .filter((g) => g.user_id === userId)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));

export const activeGrant = (s: AuthServices, userId: string, providerId: string): BrokerGrant | undefined =>
  Object.values(s.broker.data.grants).find(
    (g) => g.user_id === userId && g.broker_provider_id === providerId && !g.revoked_at,
  );

/**
 * Stores new upstream credentials for (user, provider): the active grant gets them with its `version`
 * raised, or a new grant is made. Durable before it returns.
 */
export async function saveCredentials(
  s: AuthServices,
  userId: string,
  providerId: string,
  scopes: string[],
  credentials: UpstreamCredentials,
): Promise<BrokerGrant> {
  const now = nowIso();
  const cur = activeGrant(s, userId, providerId);
  const id = cur?.id ?? newId();
  const grant: BrokerGrant = {
    id,
    user_id: userId,
    broker_provider_id: providerId,
    scopes_granted: scopes,
    version: (cur?.version ?? 0) + 1,
    enc_backend: ENC_BACKEND,
    credentials_sealed: JSON.stringify({
      access_token: s.secrets.seal(credentials.access_token, context({ id }, 'access_token')),
      ...(credentials.refresh_token
        ? { refresh_token: s.secrets.seal(credentials.refresh_token, context({ id }, 'refresh_token')) }
        : {}),
      token_type: credentials.token_type,
      ...(credentials.expires_at !== undefined ? { expires_at: credentials.expires_at } : {}),
    } satisfies SealedCredentials),
    created_at: cur?.created_at ?? now,
    updated_at: now,
  };
  await s.broker.commit((d) => {
    d.grants[id] = grant;
  });
  return grant;
}

/** The grant's credentials (SecretUnavailableError when the key cannot open them; undefined when revoked). */
export function openCredentials(s: AuthServices, g: BrokerGrant): UpstreamCredentials | undefined {
  if (!g.credentials_sealed || g.revoked_at) return undefined;
  const sealed = JSON.parse(g.credentials_sealed) as SealedCredentials;
  return {
    access_token: s.secrets.open(sealed.access_token, context(g, 'access_token')),
    ...(sealed.refresh_token
      ? { refresh_token: s.secrets.open(sealed.refresh_token, context(g, 'refresh_token')) }
      : {}),
    token_type: sealed.token_type,
    ...(sealed.expires_at !== undefined ? { expires_at: sealed.expires_at } : {}),
  };
}

/** Revokes the matching active grants: `revoked_at` set, the sealed credentials removed. Returns how many. */
export async function revokeBrokerGrants(
  s: AuthServices,
  match: (g: BrokerGrant) => boolean,
): Promise<number> {
  const ids = Object.values(s.broker.data.grants)
    .filter((g) => !g.revoked_at && match(g))
    .map((g) => g.id);
  if (ids.length === 0) return 0;
  const now = nowIso();
  await s.broker.commit((d) => {
    for (const id of ids) {
      const g = own(d.grants, id);
      if (!g) continue;
      g.revoked_at = now;
      g.updated_at = now;
      delete g.credentials_sealed;
    }
  });
  return ids.length;
}
