/**
 * The start of the console for someone without a session, under /admin/ui (no admin key):
 *   GET  /admin/ui/start        {claim: 'open' | 'code' | 'remote' | null, password}: what the page offers
 *   POST /admin/ui/claim/code   {code}: checks the setup code before the form is shown (204)
 *   POST /admin/ui/claim        {password, code?}: the first to finish becomes the owner; answers a session
 * A claim is accepted only from a private, link-local or loopback address, once; it is logged.
 */
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { createRateLimiter, type HearthRouter, HttpError, type PasswordHasher } from '../../../core/sdk.ts';
import { readJson, sameOrigin, startSession, tooManyAttempts } from '../request.ts';
import type { Sessions } from '../sessions.ts';
import { isLocalAddress } from './local-address.ts';
import type { Owner } from './owner.ts';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

export interface ClaimDeps {
  owner: Owner;
  sessions: Sessions;
  /** argon2id, made on first use (it costs a hash). */
  passwords: () => Promise<PasswordHasher>;
  /** `plugins.console.claim.setupCode`: the setup code is asked before the form. */
  requireCode: boolean;
  runToken: () => string;
  log: Logger;
}

/** The owner password's rules, as a 400 naming the problem. */
export function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || [...password].length < PASSWORD_MIN)
    throw new HttpError(400, 'weak_password', `the password needs at least ${PASSWORD_MIN} characters`);
  if ([...password].length > PASSWORD_MAX)
    throw new HttpError(400, 'invalid_request', `the password has more than ${PASSWORD_MAX} characters`);
  return password;
}

/** `ctx.ip`: the socket's address (the hub trusts no proxy header, app.proxy is off). */
const claimRefusal = (ctx: Context): HttpError | null =>
  isLocalAddress(ctx.ip)
    ? null
    : new HttpError(
        403,
        'not_local',
        'A hub can be set up only from a device on its own network (a private or link-local address)',
      );

export function mountClaim(r: HearthRouter, d: ClaimDeps): void {
  // One bucket per address for every guess at a secret (setup code, claim): a few tries, then one per 10 s.
  const attempts = createRateLimiter({ ratePerSec: 0.1, burst: 6, maxKeys: 4096 });
  let claiming = false;

  const gone = () => new HttpError(409, 'already_claimed', 'This hub has been set up already; sign in');
  const checkCode = (ctx: Context, code: unknown) => {
    if (!d.requireCode) return;
    const wait = attempts.take(ctx.ip);
    if (wait > 0) throw tooManyAttempts(wait);
    if (!d.owner.codeMatches(code))
      throw new HttpError(403, 'wrong_setup_code', 'That is not the setup code of this hub');
  };

  r.get('/admin/ui/start', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const claim = !d.owner.claimable ? null : claimRefusal(ctx) ? 'remote' : d.requireCode ? 'code' : 'open';
    ctx.body = { claim, password: d.owner.passwordHash !== null };
  });

  r.post('/admin/ui/claim/code', async (ctx) => {
    sameOrigin(ctx);
    const refusal = claimRefusal(ctx);
    if (refusal) throw refusal;
    if (!d.owner.claimable) throw gone();
    const { code } = await readJson(ctx);
    checkCode(ctx, code);
    ctx.status = 204;
  });

  r.post('/admin/ui/claim', async (ctx) => {
    sameOrigin(ctx);
    const refusal = claimRefusal(ctx);
    if (refusal) {
      d.log.warn({ from: ctx.ip }, 'claim refused: not from a local address');
      throw refusal;
    }
    if (!d.owner.claimable) throw gone();
    const body = await readJson(ctx);
    checkCode(ctx, body.code);
    const password = checkPassword(body.password);
    // The first to finish wins: a second claim arriving while one is hashing is told so.
    if (claiming) throw new HttpError(409, 'claim_in_progress', 'Someone else is setting up this hub now');
    claiming = true;
    try {
      const hash = await (await d.passwords()).hash(password);
      if (!d.owner.claimable) throw gone();
      await d.owner.claim(hash, ctx.ip);
    } finally {
      claiming = false;
    }
    d.log.info({ from: ctx.ip }, 'hub claimed: the owner password is set');
    startSession(ctx, d.sessions, d.runToken(), 'password');
    ctx.status = 201;
  });
}
