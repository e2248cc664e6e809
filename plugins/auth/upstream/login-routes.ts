import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { createRateLimiter } from '../domain/rate-limit.ts';
import { randomToken } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { sendErrorPage } from '../web/html.ts';
import { safeRedirect } from '../web/login.ts';
import { startSession } from '../web/session.ts';
import { basicAuth, postForm, UpstreamError } from './http.ts';
import { createIdTokenVerifier, IdTokenError } from './id-token.ts';
import { linkAccount } from './linking.ts';
import type { MetadataCache } from './metadata.ts';
import { clientSecretName, findLoginProvider, loginProviders } from './providers.ts';
import { browserBinding, createTransactions, sameBrowser } from './transactions.ts';

interface LoginFlow {
  provider: string;
  verifier: string;
  nonce: string;
  redirect: string;
}

const REFUSALS = {
  disabled: 'This account is disabled.',
  no_account: 'No Hearth account is linked to this sign-in. Ask the household admin to add you.',
  email_taken:
    'A Hearth account with this email exists but cannot be linked automatically. Sign in with your password, or ask the household admin.',
} as const;

export const pkceChallenge = (verifier: string): string =>
  createHash('sha256').update(verifier).digest('base64url');

const one = (ctx: Context, name: string): string | undefined => {
  const v = ctx.query[name];
  return typeof v === 'string' && v.length <= 4096 ? v : undefined;
};

/**
 * `/oidc/start` and `/oidc/callback`: sign-in at an upstream OpenID provider with the authorization code
 * flow, PKCE S256 (RFC 7636), `state` bound to the browser and used once, `nonce` checked in the ID token,
 * RFC 9207 `iss` when the provider supports it. Errors are HTML pages; nothing is redirected anywhere but to
 * the provider and, after sign-in, to a same-origin path.
 */
export function mountUpstreamLogin(router: HearthRouter, s: AuthServices, metadata: MetadataCache): void {
  const flows = createTransactions<LoginFlow>();
  const verifyIdToken = createIdTokenVerifier(s.config.xaa.jwks_cache_ttl);
  const startBudget = createRateLimiter({ ratePerSec: 5, burst: 20, maxKeys: 10_000 });
  const redirectUri = () => `${s.issuer()}/oidc/callback`;

  router.get('/oidc/start', async (ctx) => {
    const providers = loginProviders(s);
    if (providers.length === 0)
      return sendErrorPage(ctx, 404, 'Not found', 'Upstream sign-in is not enabled.');
    const id = one(ctx, 'provider') ?? (providers.length === 1 ? providers[0]!.id : undefined);
    const provider = id === undefined ? undefined : findLoginProvider(s, id);
    if (!provider)
      return sendErrorPage(ctx, 400, 'Unknown provider', 'Choose a provider on the sign-in page.');
    const wait = startBudget.take(ctx.ip);
    if (wait > 0) {
      ctx.set('Retry-After', String(wait));
      return sendErrorPage(ctx, 429, 'Too many attempts', 'Try again in a moment.');
    }
    let meta: Awaited<ReturnType<MetadataCache['get']>>;
    try {
      meta = await metadata.get(provider.issuer);
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      s.log.warn({ provider: provider.id, reason: err.message }, 'upstream provider discovery failed');
      return sendErrorPage(
        ctx,
        502,
        'Provider unavailable',
        `${provider.display_name || provider.id} cannot be reached right now.`,
      );
    }
    const flow: LoginFlow = {
      provider: provider.id,
      verifier: randomToken(),
      nonce: randomToken(),
      redirect: safeRedirect(one(ctx, 'redirect')),
    };
    const state = flows.begin(browserBinding(ctx, s), flow);
    const url = new URL(meta.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: provider.client_id,
      redirect_uri: redirectUri(),
      scope: provider.scope,
      state,
      nonce: flow.nonce,
      code_challenge: pkceChallenge(flow.verifier),
      code_challenge_method: 'S256',
    }).toString();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(url.href);
    ctx.status = 303;
  });

  router.get('/oidc/callback', async (ctx) => {
    const fail = (status: number, message: string, reason: string) => {
      void s.audit.record('user.oidc_login_failed', { ip: ctx.ip, detail: reason });
      sendErrorPage(ctx, status, 'Sign-in failed', message);
    };
    const state = one(ctx, 'state');
    const flow = state ? flows.take(state) : undefined;
    // Unknown, expired, or already used (a replayed callback): nothing to continue.
    if (!flow) return fail(400, 'This sign-in has expired or was already used. Start again.', 'state');
    if (!sameBrowser(ctx, s, flow.binding))
      return fail(400, 'This sign-in was started in another browser. Start again.', 'browser');
    const provider = findLoginProvider(s, flow.data.provider);
    if (!provider) return fail(400, 'This provider is no longer offered.', 'provider');
    const error = one(ctx, 'error');
    if (error)
      return fail(
        403,
        `The provider refused the sign-in (${error.slice(0, 64)}).`,
        `provider error ${error.slice(0, 64)}`,
      );
    const code = one(ctx, 'code');
    if (!code) return fail(400, 'The provider sent no authorization code.', 'no code');
    try {
      const meta = await metadata.get(provider.issuer);
      // RFC 9207 §2.4: the response must name the provider we sent the user to.
      const iss = one(ctx, 'iss');
      if ((iss !== undefined || meta.iss_parameter_supported) && iss !== meta.issuer)
        return fail(400, 'The answer came from another provider.', 'iss');
      const secret = s.secrets.get(clientSecretName(provider.id));
      const res = await postForm(
        meta.token_endpoint,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri(),
          code_verifier: flow.data.verifier,
          ...(secret ? {} : { client_id: provider.client_id }),
        },
        secret ? { authorization: basicAuth(provider.client_id, secret) } : {},
      );
      const idToken = res.json?.id_token;
      if (res.status !== 200 || typeof idToken !== 'string') {
        const upstreamError =
          typeof res.json?.error === 'string' ? res.json.error.slice(0, 64) : `status ${res.status}`;
        return fail(502, 'The provider did not complete the sign-in.', `token endpoint ${upstreamError}`);
      }
      // The upstream access and refresh tokens are not kept: a sign-in needs only the ID token.
      const claims = await verifyIdToken(idToken, meta, provider.client_id, flow.data.nonce);
      const outcome = await linkAccount(s, provider, claims);
      if ('refused' in outcome) return fail(403, REFUSALS[outcome.refused], `link ${outcome.refused}`);
      await startSession(ctx, s, outcome.user);
      void s.audit.record('user.oidc_login', {
        actor_id: outcome.user.id,
        ip: ctx.ip,
        detail: `${provider.id} ${outcome.rule}`,
      });
      ctx.redirect(flow.data.redirect);
      ctx.status = 303;
    } catch (err) {
      if (err instanceof IdTokenError) return fail(400, 'The provider’s ID token was refused.', err.message);
      if (err instanceof UpstreamError)
        return fail(502, 'The provider cannot be reached right now.', err.message);
      throw err;
    }
  });
}
