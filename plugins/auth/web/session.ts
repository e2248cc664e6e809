import type { Context } from 'koa';
import { hmac, randomToken, safeEqual } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import type { User } from '../state/model.ts';

const LOGIN_NONCE_TTL = 12 * 3600;

/** `__Host-` names only work with Secure, so plain-HTTP installs use the bare names. */
const names = (s: AuthServices) =>
  s.secure()
    ? { session: '__Host-hearth_session', nonce: '__Host-hearth_login' }
    : { session: 'hearth_session', nonce: 'hearth_login' };

export function setCookie(ctx: Context, s: AuthServices, name: string, value: string, maxAge: number): void {
  const flags = ['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`];
  if (s.secure()) flags.push('Secure');
  ctx.append('Set-Cookie', `${name}=${value}; ${flags.join('; ')}`);
}

export function cookie(ctx: Context, name: string): string | undefined {
  const header = ctx.get('cookie');
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Signs the user in: a new server-side session (the cookie is an opaque 256-bit value), replacing the one
 * the browser may already hold, so an old cookie copied elsewhere does not outlive a new sign-in.
 */
export async function startSession(ctx: Context, s: AuthServices, user: User): Promise<void> {
  const previous = cookie(ctx, names(s).session);
  if (previous) await s.sessions.end(previous);
  const token = s.sessions.start(user.id, s.config.session_ttl);
  setCookie(ctx, s, names(s).session, token, s.config.session_ttl);
}

/** Logout: ends the session on the server (a copy of the cookie stops working too) and clears the cookie. */
export async function endSession(ctx: Context, s: AuthServices): Promise<void> {
  const raw = cookie(ctx, names(s).session);
  if (raw) await s.sessions.end(raw);
  setCookie(ctx, s, names(s).session, '', 0);
}

export interface Session {
  user: User;
  /** The raw cookie value; consent CSRF tokens are bound to it. */
  raw: string;
  /** When the user signed in (epoch ms): the ID token's `auth_time`. */
  created_at: number;
}

/** The signed-in user: the session must exist on the server, be unexpired, and its user be active. */
export function currentSession(ctx: Context, s: AuthServices): Session | null {
  const raw = cookie(ctx, names(s).session);
  if (!raw || raw.length > 128) return null;
  const record = s.sessions.find(raw);
  if (!record) return null;
  const user = own(s.data.data.users, record.user_id);
  return user && user.status === 'active' ? { user, raw, created_at: record.created_at } : null;
}

/** Login CSRF: a pre-session nonce cookie and a form token that is an HMAC of it (double submit). */
export function loginCsrfToken(ctx: Context, s: AuthServices): string {
  let nonce = cookie(ctx, names(s).nonce);
  if (!nonce || !/^[A-Za-z0-9_-]{43}$/.test(nonce)) {
    nonce = randomToken();
    setCookie(ctx, s, names(s).nonce, nonce, LOGIN_NONCE_TTL);
  }
  return hmac(s.keys.hmacSecret, `login-csrf|${nonce}`);
}

export function checkLoginCsrf(ctx: Context, s: AuthServices, token: string | null): boolean {
  const nonce = cookie(ctx, names(s).nonce);
  return !!nonce && !!token && safeEqual(token, hmac(s.keys.hmacSecret, `login-csrf|${nonce}`));
}

/** Consent CSRF: bound to the session cookie and to the pending authorization. */
export const consentCsrfToken = (s: AuthServices, session: Session, pendingId: string): string =>
  hmac(s.keys.hmacSecret, `consent-csrf|${session.raw}|${pendingId}`);

/** Logout CSRF: bound to the session cookie, so another site cannot end the user's session (login CSRF's twin). */
export const logoutCsrfToken = (s: AuthServices, session: Session): string =>
  hmac(s.keys.hmacSecret, `logout-csrf|${session.raw}`);
