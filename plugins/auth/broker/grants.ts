import { newId } from '../domain/secrets.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { BrokerGrant, UpstreamCredentials } from './model.ts';

/** Sealed by the core's secrets facility (docs/secrets.md): AES-256-GCM, the grant id bound as context. */
export const ENC_BACKEND = 'aes-256-gcm';

const context = (g: { id: string }) => `broker-grant:${g.id}`;

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
    credentials_sealed: s.secrets.seal(JSON.stringify(credentials), context({ id })),
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
  return JSON.parse(s.secrets.open(g.credentials_sealed, context(g))) as UpstreamCredentials;
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
