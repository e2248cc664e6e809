import type { Context } from 'koa';
import { hmac, randomToken, safeEqual } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import type { User } from '../state/model.ts';

const LOGIN_NONCE_TTL = 12 * 3600;

/** `__Host-` names only work with Secure, so plain-HTTP installs use the bare names. */
const names = (s: AuthServices) =>
  s.secure()
    ? { session: '__Host-hearth_session', nonce: '__Host-hearth_login' }
    : { session: 'hearth_session', nonce: 'hearth_login' };

function setCookie(ctx: Context, s: AuthServices, name: string, value: string, maxAge: number): void {
  const flags = ['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`];
  if (s.secure()) flags.push('Secure');
  ctx.append('Set-Cookie', `${name}=${value}; ${flags.join('; ')}`);
}

function cookie(ctx: Context, name: string): string | undefined {
  const header = ctx.get('cookie');
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Stateless session `userId.expiry.mac`; every use re-checks that the user still exists and is active. */
export function startSession(ctx: Context, s: AuthServices, user: User): void {
  const exp = Math.floor(Date.now() / 1000) + s.config.session_ttl;
  const payload = `${user.id}.${exp}`;
  setCookie(
    ctx,
    s,
    names(s).session,
    `${payload}.${hmac(s.keys.hmacSecret, `session|${payload}`)}`,
    s.config.session_ttl,
  );
}

export function endSession(ctx: Context, s: AuthServices): void {
  setCookie(ctx, s, names(s).session, '', 0);
}

export interface Session {
  user: User;
  /** The raw cookie value; consent CSRF tokens are bound to it. */
  raw: string;
}

export function currentSession(ctx: Context, s: AuthServices): Session | null {
  const raw = cookie(ctx, names(s).session);
  if (!raw) return null;
  const [id, exp, mac] = raw.split('.');
  if (!id || !exp || !mac) return null;
  if (!safeEqual(mac, hmac(s.keys.hmacSecret, `session|${id}.${exp}`))) return null;
  if (Number(exp) * 1000 < Date.now()) return null;
  const user = s.data.data.users[id];
  return user && user.status === 'active' ? { user, raw } : null;
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
