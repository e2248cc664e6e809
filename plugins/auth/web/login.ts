import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { createRateLimiter } from '../domain/rate-limit.ts';
import { safeEqual } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import { providerButtons } from '../upstream/providers.ts';
import { FormError, field, readForm } from './form.ts';
import { esc, sendPage } from './html.ts';
import {
  checkLoginCsrf,
  currentSession,
  endSession,
  loginCsrfToken,
  logoutCsrfToken,
  startSession,
} from './session.ts';

/** Only same-origin relative paths are followed after login (never `//host` or `/\host`). */
export function safeRedirect(value: string | null | undefined): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}

function renderLogin(
  ctx: Context,
  s: AuthServices,
  status: number,
  redirect: string,
  error?: string,
  email = '',
): void {
  const upstream = providerButtons(s, redirect);
  if (!s.config.local_login) {
    sendPage(
      ctx,
      status,
      'Sign in',
      `<h1>Sign in to Hearth</h1>${upstream || '<p>Password sign-in is disabled on this hub.</p>'}`,
    );
    return;
  }
  const csrf = loginCsrfToken(ctx, s);
  sendPage(
    ctx,
    status,
    'Sign in',
    `<h1>Sign in to Hearth</h1>${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/login">
<input type="hidden" name="csrf_token" value="${esc(csrf)}"><input type="hidden" name="redirect" value="${esc(redirect)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>${upstream}`,
  );
}

/** Spec rule 5: 429 as an HTML page with the real remaining time in `Retry-After` (at least 1 s). */
function tooMany(ctx: Context, seconds: number, scope: string): void {
  ctx.set('Retry-After', String(Math.max(1, seconds)));
  sendPage(
    ctx,
    429,
    'Too many attempts',
    `<h1>Too many attempts</h1><p>Sign-in is paused ${esc(scope)}. Try again later.</p>`,
  );
}

export function mountLogin(router: HearthRouter, s: AuthServices): void {
  const hashBudget = createRateLimiter({ ratePerSec: 5, burst: 20, maxKeys: 10_000 });
  router.get('/login', (ctx) => {
    const q = ctx.query.redirect;
    renderLogin(ctx, s, 200, safeRedirect(typeof q === 'string' ? q : undefined));
  });

  router.post('/login', async (ctx) => {
    // Spec rule 5: 404 before the body is read when local login is disabled.
    if (!s.config.local_login) {
      sendPage(ctx, 404, 'Not found', '<h1>Not found</h1>');
      return;
    }
    let form: URLSearchParams;
    try {
      form = await readForm(ctx);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      renderLogin(ctx, s, 422, '/', 'The form could not be read. Please try again.');
      return;
    }
    const redirect = safeRedirect(field(form, 'redirect', 4096));
    const email = field(form, 'email', 254);
    const password = field(form, 'password', 1024);
    if (!checkLoginCsrf(ctx, s, field(form, 'csrf_token'))) {
      renderLogin(ctx, s, 422, redirect, 'Your session expired. Please sign in again.', email ?? '');
      return;
    }
    if (!email || !password) {
      renderLogin(ctx, s, 422, redirect, 'Enter your email and password.', email ?? '');
      return;
    }
    // Checked before hashing so a locked identity costs no argon2 work (docs/auth.md#behaviour-where-the-spec-is-silent).
    const remaining = s.lockout.remainingMs(email, ctx.ip);
    if (remaining > 0) return tooMany(ctx, Math.ceil(remaining / 1000), 'for this account');
    // Research §4.3: a coarse per-IP bucket in front of the hash, so spraying many identities cannot queue
    // unbounded argon2 work (the lockout above counts per identity).
    const wait = hashBudget.take(ctx.ip);
    if (wait > 0) return tooMany(ctx, wait, 'from your address');
    const user = Object.values(s.data.data.users).find((u) => u.email.toLowerCase() === email.toLowerCase());
    // Unknown and disabled users still pay for a (dummy) verify: timing tells nothing.
    const ok = await s.passwords.verify(user?.password_hash ?? null, password);
    if (!ok || !user || user.status !== 'active') {
      if (s.lockout.fail(email, ctx.ip))
        void s.audit.record('auth.locked_out', { ip: ctx.ip, detail: email });
      void s.audit.record('user.login_failed', { ip: ctx.ip, actor_id: user?.id ?? '' });
      renderLogin(ctx, s, 422, redirect, 'Invalid email or password.', email);
      return;
    }
    s.lockout.succeed(email, ctx.ip);
    // Hashes made with older parameters are upgraded while the password is at hand (docs/auth.md#passwords).
    if (s.passwords.needsRehash(user.password_hash)) {
      const phc = await s.passwords.hash(password);
      s.data.update((d) => {
        const u = own(d.users, user.id);
        if (u) u.password_hash = phc;
      });
    }
    await startSession(ctx, s, user);
    void s.audit.record('user.login', { actor_id: user.id, ip: ctx.ip });
    ctx.status = 303; // RFC 9700 §4.12: never 307 after a POST with credentials
    ctx.redirect(redirect);
    ctx.status = 303;
  });

  router.post('/logout', async (ctx) => {
    const session = currentSession(ctx, s);
    if (session) {
      let token: string | null = null;
      try {
        token = field(await readForm(ctx), 'csrf_token', 128);
      } catch (err) {
        if (!(err instanceof FormError)) throw err;
      }
      // A cross-site form may not end the session: the token comes from the signed-in page only.
      if (!token || !safeEqual(token, logoutCsrfToken(s, session))) {
        sendPage(
          ctx,
          403,
          'Request refused',
          '<h1>Request refused</h1><p>Sign out from the Hearth page.</p>',
        );
        return;
      }
      await endSession(ctx, s);
    }
    ctx.redirect('/login');
    ctx.status = 303; // RFC 9700 §4.12
  });

  router.get('/', (ctx) => {
    const session = currentSession(ctx, s);
    if (!session) {
      ctx.redirect('/login');
      ctx.status = 303;
      return;
    }
    sendPage(
      ctx,
      200,
      'Signed in',
      `<h1>Signed in</h1><p>You are signed in as ${esc(session.user.email)}.</p><form method="post" action="/logout"><input type="hidden" name="csrf_token" value="${esc(logoutCsrfToken(s, session))}"><button>Sign out</button></form>`,
    );
  });
}
