import type { Context } from 'koa';
import { randomToken, safeEqual, sha256 } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { cookie, setCookie } from '../web/session.ts';

const TTL_MS = 600_000;
const MAX = 10_000;

export interface Transaction<T> {
  /** SHA-256 of the browser's flow cookie: the callback must come back to the browser that started. */
  binding: string;
  expires: number;
  data: T;
}

/**
 * Redirect flows to upstream providers in progress (OpenID login, connect), keyed by their `state`: a
 * 256-bit value used once. In memory (a restart costs one more click), at most 10,000 for 10 minutes; when
 * full the oldest goes first.
 */
export function createTransactions<T>(now: () => number = Date.now) {
  const all = new Map<string, Transaction<T>>();
  return {
    begin(binding: string, data: T): string {
      const state = randomToken();
      for (const [k, t] of all) {
        if (t.expires > now() && all.size < MAX) break;
        all.delete(k);
      }
      all.set(state, { binding, expires: now() + TTL_MS, data });
      return state;
    },
    /** The transaction of `state`, removed whatever happens next: a replayed callback finds nothing. */
    take(state: string): Transaction<T> | undefined {
      const t = all.get(state);
      all.delete(state);
      return t && t.expires > now() ? t : undefined;
    },
    size: () => all.size,
  };
}

const flowCookie = (s: AuthServices) => (s.secure() ? '__Host-hearth_flow' : 'hearth_flow');

/** The browser's flow cookie (made on first use; two tabs share it), as the binding stored with a flow. */
export function browserBinding(ctx: Context, s: AuthServices): string {
  let value = cookie(ctx, flowCookie(s));
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
    value = randomToken();
    setCookie(ctx, s, flowCookie(s), value, TTL_MS / 1000);
  }
  return sha256(value);
}

/** True when the callback arrived in the browser that started the flow. */
export function sameBrowser(ctx: Context, s: AuthServices, binding: string): boolean {
  const value = cookie(ctx, flowCookie(s));
  return !!value && safeEqual(sha256(value), binding);
}
