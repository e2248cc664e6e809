import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { param } from '../admin/util.ts';
import { redirectUriMatches } from '../domain/redirect-uri.ts';
import { randomToken } from '../domain/secrets.ts';
import { type AuthServices, findResource } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Resource } from '../state/model.ts';
import { postForm, UpstreamError } from '../upstream/http.ts';
import { pkceChallenge } from '../upstream/login-routes.ts';
import type { MetadataCache } from '../upstream/metadata.ts';
import { browserBinding, createTransactions, sameBrowser } from '../upstream/transactions.ts';
import { esc, sendErrorPage, sendPage } from '../web/html.ts';
import { currentSession } from '../web/session.ts';
import { activeGrant, grantsOfUser, revokeBrokerGrants, saveCredentials } from './grants.ts';
import { findBrokerProvider } from './providers.ts';
import { brokerEndpoints, clientAuth, credentialsFrom } from './upstream-config.ts';

interface ConnectFlow {
  providerId: string;
  userId: string;
  scopes: string[];
  verifier: string;
  returnUrl: string | null;
}

const one = (ctx: Context, name: string): string | undefined => {
  const v = ctx.query[name];
  return typeof v === 'string' && v.length <= 4096 ? v : undefined;
};

/** The upstream scopes a broker resource asks for: each scope's `upstream` name, or its own name. */
export const upstreamScopes = (r: Resource): string[] => r.scopes.map((x) => x.upstream ?? x.name);

function jsonError(ctx: Context, status: number, error: string, detail: string): void {
  ctx.status = status;
  ctx.body = { error, detail };
}

/**
 * The connect flow: a signed-in user authorizes Hearth at a broker provider, and the upstream credentials
 * are kept for them (sealed) as a broker grant. `/connections` lists and ends those grants. Failures are
 * HTML pages and never redirect: only a return URL the resource's connect policy lists is ever followed.
 */
export function mountConnect(router: HearthRouter, s: AuthServices, metadata: MetadataCache): void {
  const flows = createTransactions<ConnectFlow>();
  const callbackUrl = (slug: string) => `${s.issuer()}/connect/${encodeURIComponent(slug)}/callback`;

  router.get('/connect/:provider', async (ctx) => {
    const provider = findBrokerProvider(s, param(ctx, 'provider'));
    if (!provider) return sendErrorPage(ctx, 404, 'Unknown provider', 'There is no such connection to make.');
    const session = currentSession(ctx, s);
    if (!session) {
      ctx.redirect(`/login?redirect=${encodeURIComponent(ctx.originalUrl)}`);
      ctx.status = 303;
      return;
    }
    const ref = one(ctx, 'resource');
    const resource = ref ? findResource(s, ref) : undefined;
    if (ref && (!resource || resource.broker_provider_id !== provider.id))
      return sendErrorPage(ctx, 400, 'Unknown resource', 'The resource is not served by this provider.');
    const returnUrl = one(ctx, 'return_url') ?? null;
    // Only a URL listed in the resource's connect policy (exact; a loopback port may differ, RFC 8252 §7.3).
    if (
      returnUrl !== null &&
      !(resource && redirectUriMatches(resource.policy.connect?.allowed_return_urls ?? [], returnUrl))
    )
      return sendErrorPage(
        ctx,
        400,
        'Return address not allowed',
        'The app asked to come back to an address this resource does not allow.',
      );
    try {
      const e = await brokerEndpoints(s, provider, metadata);
      const scopes = [...new Set([...e.scopes, ...(resource ? upstreamScopes(resource) : [])])];
      const flow: ConnectFlow = {
        providerId: provider.id,
        userId: session.user.id,
        scopes,
        verifier: randomToken(),
        returnUrl,
      };
      const state = flows.begin(browserBinding(ctx, s), flow);
      const url = new URL(e.authorization_endpoint);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: e.client_id,
        redirect_uri: callbackUrl(provider.slug),
        state,
        code_challenge: pkceChallenge(flow.verifier),
        code_challenge_method: 'S256',
        ...(scopes.length ? { scope: scopes.join(' ') } : {}),
      }))
        url.searchParams.set(k, v);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.redirect(url.href);
      ctx.status = 303;
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      s.log.warn({ provider: provider.slug, reason: err.message }, 'broker provider cannot be connected');
      sendErrorPage(
        ctx,
        502,
        'Provider unavailable',
        `${provider.display_name} cannot be connected right now.`,
      );
    }
  });

  router.get('/connect/:provider/callback', async (ctx) => {
    const fail = (status: number, message: string, reason: string) => {
      void s.audit.record('broker_grant.denied', { ip: ctx.ip, detail: reason });
      sendErrorPage(ctx, status, 'Connection failed', message);
    };
    const state = one(ctx, 'state');
    const t = state ? flows.take(state) : undefined;
    if (!t) return fail(400, 'This connection has expired or was already completed. Start again.', 'state');
    const provider = findBrokerProvider(s, param(ctx, 'provider'));
    if (!provider || provider.id !== t.data.providerId)
      return fail(400, 'This connection belongs to another provider.', 'provider');
    const session = currentSession(ctx, s);
    if (!sameBrowser(ctx, s, t.binding) || session?.user.id !== t.data.userId)
      return fail(400, 'This connection was started by another browser or user. Start again.', 'browser');
    const error = one(ctx, 'error');
    if (error)
      return fail(
        403,
        `${provider.display_name} refused (${error.slice(0, 64)}).`,
        `provider error ${error.slice(0, 64)}`,
      );
    const code = one(ctx, 'code');
    if (!code) return fail(400, 'The provider sent no authorization code.', 'no code');
    try {
      const e = await brokerEndpoints(s, provider, metadata);
      const auth = clientAuth(e);
      const res = await postForm(
        e.token_endpoint,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: callbackUrl(provider.slug),
          code_verifier: t.data.verifier,
          ...auth.form,
        },
        auth.headers,
      );
      const { credentials, scope } = credentialsFrom(res.json, res.status);
      const grant = await saveCredentials(s, t.data.userId, provider.id, scope ?? t.data.scopes, credentials);
      void s.audit.record(grant.version === 1 ? 'broker_grant.created' : 'upstream.token.issued', {
        actor_id: t.data.userId,
        ip: ctx.ip,
        detail: `${provider.slug} ${grant.id} v${grant.version}`,
      });
      if (t.data.returnUrl) {
        ctx.redirect(t.data.returnUrl);
        ctx.status = 303;
        return;
      }
      sendPage(
        ctx,
        200,
        'Connected',
        `<h1>Connected</h1><p>Hearth can now use ${esc(provider.display_name)} for you. You may close this page.</p>`,
      );
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      return fail(502, `${provider.display_name} did not complete the connection.`, err.message);
    }
  });

  // JSON for apps on the hub's own origin (the session cookie is SameSite=Lax and no CORS is offered, so
  // another site can neither read the list nor send the DELETE).
  router.get('/connections', (ctx) => {
    const session = currentSession(ctx, s);
    if (!session) return jsonError(ctx, 401, 'login_required', 'sign in first');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      connections: grantsOfUser(s, session.user.id)
        .filter((g) => !g.revoked_at)
        .map((g) => {
          const p = own(s.broker.data.providers, g.broker_provider_id);
          return {
            provider: p?.slug ?? '',
            broker_provider_id: g.broker_provider_id,
            display_name: p?.display_name ?? '',
            scopes_granted: g.scopes_granted,
            version: g.version,
            connected_at: g.created_at,
            updated_at: g.updated_at,
          };
        }),
    };
  });

  router.delete('/connections/:provider', async (ctx) => {
    const session = currentSession(ctx, s);
    if (!session) return jsonError(ctx, 401, 'login_required', 'sign in first');
    const provider = findBrokerProvider(s, param(ctx, 'provider'));
    const grant = provider ? activeGrant(s, session.user.id, provider.id) : undefined;
    if (!provider || !grant)
      return jsonError(ctx, 404, 'connection_not_found', 'no connection to this provider');
    await revokeBrokerGrants(s, (g) => g.id === grant.id);
    void s.audit.record('broker_grant.revoked', { actor_id: session.user.id, ip: ctx.ip, detail: grant.id });
    ctx.status = 204;
  });
}
