import type { DocStore } from '../../../core/sdk.ts';
import { newId, randomToken, sha256 } from '../domain/secrets.ts';
import { own } from './collections.ts';
import type { SessionData, SessionRecord } from './model.ts';

const MAX_SESSIONS = 10_000;

/**
 * Browser sessions, held on the server so they can be ended there: the cookie is an opaque 256-bit value,
 * the file keeps only its SHA-256 (like refresh tokens). Starting one is a coalesced write (a crash costs
 * a sign-in); ending one is durable before it is acknowledged, so an ended session never comes back.
 */
export function createSessionStore(store: DocStore<SessionData>, now: () => number = Date.now) {
  const all = () => store.data.sessions;
  const expiredOrOldest = (): string[] => {
    const t = now();
    const entries = Object.entries(all());
    const out = entries.filter(([, r]) => r.expires_at <= t).map(([k]) => k);
    const over = entries.length - out.length - (MAX_SESSIONS - 1);
    if (over > 0) {
      const live = entries
        .filter(([, r]) => r.expires_at > t)
        .sort((a, b) => a[1].created_at - b[1].created_at);
      out.push(...live.slice(0, over).map(([k]) => k));
    }
    return out;
  };
  const removeWhere = async (pred: (r: SessionRecord) => boolean): Promise<number> => {
    const keys = Object.entries(all())
      .filter(([, r]) => pred(r))
      .map(([k]) => k);
    if (keys.length === 0) return 0;
    await store.commit((d) => {
      for (const k of keys) delete d.sessions[k];
    });
    return keys.length;
  };
  return {
    /** A new session for the user; returns the cookie value (shown once, stored hashed). */
    start(userId: string, ttlSec: number): string {
      const token = randomToken();
      const t = now();
      const stale = expiredOrOldest();
      store.update((d) => {
        for (const k of stale) delete d.sessions[k];
        d.sessions[sha256(token)] = {
          id: newId(),
          user_id: userId,
          created_at: t,
          expires_at: t + ttlSec * 1000,
        };
      });
      return token;
    },
    /** The live session a cookie value names. */
    find(token: string): SessionRecord | undefined {
      const r = own(all(), sha256(token));
      return r && r.expires_at > now() ? r : undefined;
    },
    /** Ends the session a cookie value names (logout). */
    async end(token: string): Promise<boolean> {
      const key = sha256(token);
      if (!own(all(), key)) return false;
      await store.commit((d) => {
        delete d.sessions[key];
      });
      return true;
    },
    list: (userId: string): SessionRecord[] =>
      Object.values(all())
        .filter((r) => r.user_id === userId && r.expires_at > now())
        .sort((a, b) => a.created_at - b.created_at),
    /** Ends every session of a user (force logout, disable, delete, password change). */
    endUser: (userId: string): Promise<number> => removeWhere((r) => r.user_id === userId),
    /** Ends one session of a user by its public id. */
    endOne: async (userId: string, id: string): Promise<boolean> =>
      (await removeWhere((r) => r.user_id === userId && r.id === id)) > 0,
    prune(): void {
      const stale = Object.entries(all())
        .filter(([, r]) => r.expires_at <= now())
        .map(([k]) => k);
      if (stale.length === 0) return;
      store.update((d) => {
        for (const k of stale) delete d.sessions[k];
      });
    },
    count: () => Object.keys(all()).length,
    flush: () => store.flush(),
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
