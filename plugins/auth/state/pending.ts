import { randomToken } from '../domain/secrets.ts';

/** A validated authorization request waiting for the user's consent. */
export interface PendingAuthorization {
  client_id: string;
  redirect_uri: string;
  state: string | undefined;
  code_challenge: string;
  resource_id: string;
  scopes: string[];
  user_id: string;
  /** OpenID Connect: the request's `nonce` and when the user signed in (epoch s), for the ID token. */
  nonce?: string | undefined;
  auth_time: number;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to. */
  dpop_jkt?: string | undefined;
  expires_at: number;
}

const TTL_MS = 15 * 60_000;
const MAX = 10_000;

/** Pending consents by an unguessable id (the `session_id` of the consent page), bounded and short-lived. */
export function createPendingAuthorizations() {
  const items = new Map<string, PendingAuthorization>();
  return {
    add(p: Omit<PendingAuthorization, 'expires_at'>): string {
      const t = Date.now();
      for (const [k, v] of items) if (v.expires_at < t || items.size >= MAX) items.delete(k);
      const id = randomToken();
      items.set(id, { ...p, expires_at: t + TTL_MS });
      return id;
    },
    get(id: string): PendingAuthorization | undefined {
      const p = items.get(id);
      return p && p.expires_at > Date.now() ? p : undefined;
    },
    take(id: string): PendingAuthorization | undefined {
      const p = this.get(id);
      items.delete(id);
      return p;
    },
    /** Drops every pending authorization of a user (disabled user, docs/auth.md#behaviour-where-the-spec-is-silent). */
    dropUser(userId: string): void {
      for (const [k, v] of items) if (v.user_id === userId) items.delete(k);
    },
  };
}

export type PendingAuthorizations = ReturnType<typeof createPendingAuthorizations>;
