/** The console's routes on the admin listener, all under /admin/ui (which the admin key guard leaves to us). */
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import {
  type AdminKeyApi,
  createRateLimiter,
  type HearthRouter,
  HttpError,
  type PasswordHasher,
} from '../../core/sdk.ts';
import type { Owner } from './claim/owner.ts';
import { forward } from './proxy.ts';
import { uqr } from './qr.ts';
import { COOKIE, readJson, sameOrigin, startSession, tooManyAttempts } from './request.ts';
import { type Session, Sessions } from './sessions.ts';
import type { ConsolePage } from './types.ts';

const CSRF_HEADER = 'x-hearth-csrf';
/** Strict: our own scripts, styles and images only; QR codes come as data: images. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const STATIC: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'shell.js': 'text/javascript; charset=utf-8',
  'kit.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

export interface ConsoleDeps {
  sessions: Sessions;
  adminKey: AdminKeyApi;
  pages: () => ConsolePage[];
  /** The base URL of a named listener. */
  listenerUrl: (name: string) => string;
  webDir: string;
  owner: Owner;
  passwords: () => Promise<PasswordHasher>;
}

const unauthorized = () =>
  new HttpError(401, 'no_session', 'sign in with the owner password or the admin key');

export function mountConsole(r: HearthRouter, d: ConsoleDeps): void {
  const files = new Map<string, string>();
  const file = async (name: string) => {
    if (!files.has(name)) files.set(name, await readFile(d.webDir + name, 'utf8'));
    return files.get(name)!;
  };
  const session = (ctx: Context, write: boolean): Session => {
    const s = d.sessions.get(ctx.cookies.get(COOKIE));
    if (!s) throw unauthorized();
    // Every change carries the session's CSRF token in a header a cross-site form cannot set.
    if (write) {
      sameOrigin(ctx);
      if (!Sessions.csrfMatches(s, ctx.get(CSRF_HEADER) || undefined)) {
        throw new HttpError(403, 'csrf', 'the request lacks the console CSRF token');
      }
    }
    return s;
  };
  const serve = async (ctx: Context, name: string) => {
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = STATIC[name]!;
    ctx.body = await file(name);
  };

  // The router ignores a trailing slash: one route answers both, the page only with the slash (relative links).
  r.get('/admin/ui', (ctx) =>
    ctx.path === '/admin/ui/' ? serve(ctx, 'index.html') : ctx.redirect('/admin/ui/'),
  );
  r.get('/admin/ui/shell.js', (ctx) => serve(ctx, 'shell.js'));
  r.get('/admin/ui/kit.js', (ctx) => serve(ctx, 'kit.js'));
  r.get('/admin/ui/style.css', (ctx) => serve(ctx, 'style.css'));

  r.get('/admin/ui/session', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const s = session(ctx, false);
    ctx.body = { csrf: s.csrf, kind: s.kind };
  });
  // Sign-in with the admin key ({key}) or the owner password ({password}). Password guesses are limited
  // per address (and each costs an argon2 hash); a 256-bit random admin key cannot be guessed.
  const passwordTries = createRateLimiter({ ratePerSec: 0.5, burst: 10, maxKeys: 4096 });
  r.post('/admin/ui/session', async (ctx) => {
    sameOrigin(ctx);
    const { key, password } = await readJson(ctx);
    if (typeof password === 'string') {
      const wait = passwordTries.take(ctx.ip);
      if (wait > 0) throw tooManyAttempts(wait);
      const hash = d.owner.passwordHash;
      // Without an owner password a dummy verify still runs: the answer's timing tells nothing.
      const ok = await (await d.passwords()).verify(hash, password);
      if (!ok) throw new HttpError(401, 'invalid_password', 'The password is wrong');
      return startSession(ctx, d.sessions, d.adminKey.runToken(), 'password');
    }
    if (typeof key !== 'string' || !d.adminKey.verify(key)) {
      throw new HttpError(401, 'invalid_admin_key', 'The admin key is missing or wrong');
    }
    startSession(ctx, d.sessions, key, 'key');
  });
  r.delete('/admin/ui/session', (ctx) => {
    session(ctx, true);
    d.sessions.end(ctx.cookies.get(COOKIE));
    ctx.cookies.set(COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/admin/ui', maxAge: 0 });
    ctx.status = 204;
  });

  r.get('/admin/ui/pages', (ctx) => {
    session(ctx, false);
    ctx.body = d.pages().map(({ id, title }) => ({ id, title }));
  });
  r.get('/admin/ui/pages/:file', async (ctx) => {
    session(ctx, false);
    const id = /^([a-z0-9-]+)\.js$/.exec(ctx.params.file ?? '')?.[1];
    const page = d.pages().find((p) => p.id === id);
    if (!page) throw new HttpError(404, 'not_found', 'no such console page');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = await readFile(page.module, 'utf8');
  });

  r.post('/admin/ui/qr', async (ctx) => {
    session(ctx, true);
    const { text } = await readJson(ctx);
    if (typeof text !== 'string' || text.length === 0 || text.length > 1000) {
      throw new HttpError(400, 'invalid_request', 'text must be a string of 1 to 1000 characters');
    }
    ctx.type = 'image/svg+xml';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = uqr(text);
  });

  r.all(/^\/admin\/ui\/api\/.+/, async (ctx) => {
    const s = session(ctx, ctx.method !== 'GET' && ctx.method !== 'HEAD');
    const path = `/admin/${ctx.path.slice('/admin/ui/api/'.length)}`;
    await forward(ctx, d.listenerUrl('admin'), `Bearer ${s.key}`, path);
  });

  // A page's own API: /admin/ui/via/<page id>/<path> → <listener><prefix>/<path>.
  r.all(/^\/admin\/ui\/via\/[a-z0-9-]+\/.+/, async (ctx) => {
    const s = session(ctx, ctx.method !== 'GET' && ctx.method !== 'HEAD');
    const [id = '', ...rest] = ctx.path.slice('/admin/ui/via/'.length).split('/');
    const target = d.pages().find((p) => p.id === id)?.api;
    if (!target) throw new HttpError(404, 'not_found', 'no such console page API');
    await forward(
      ctx,
      d.listenerUrl(target.listener),
      `${target.scheme} ${s.key}`,
      `${target.prefix}/${rest.join('/')}`,
    );
  });
}
