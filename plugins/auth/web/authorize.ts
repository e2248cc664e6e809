import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { redirectUriMatches } from '../domain/redirect-uri.ts';
import { IDENTITY_SCOPE_NAMES, isIdentityScope, isSubset, parseScope } from '../domain/scopes.ts';
import { newId } from '../domain/secrets.ts';
import { CimdError, isCimdUrl } from '../oauth/cimd.ts';
import { revokeJti } from '../oauth/issue.ts';
import { type AuthServices, findClient, nowIso } from '../services.ts';
import { USERINFO_URI } from '../sites/site-resources.ts';
import type { Client, ConsentGrant } from '../state/model.ts';
import type { PendingAuthorization } from '../state/pending.ts';
import { sendErrorPage } from './html.ts';
import { currentSession } from './session.ts';

// RFC 7636 §4.2: S256 challenge is the base64url of a SHA-256 digest, 43 characters
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
// RFC 7638 thumbprint with SHA-256, base64url: 43 characters too
const JKT = /^[A-Za-z0-9_-]{43}$/;

/** Redirects to the client with the RFC 9207 `iss` on every authorization response. */
export function redirectToClient(
  ctx: Context,
  s: AuthServices,
  redirectUri: string,
  params: Record<string, string | undefined>,
): void {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set('iss', s.issuer());
  ctx.redirect(url.toString());
  ctx.status = 303;
}

/** Issues the code for an approved request and sends the browser back to the client. */
export function completeAuthorization(
  ctx: Context,
  s: AuthServices,
  p: Omit<PendingAuthorization, 'expires_at'>,
  grantId: string,
): void {
  const code = s.codes.issue({
    client_id: p.client_id,
    redirect_uri: p.redirect_uri,
    code_challenge: p.code_challenge,
    user_id: p.user_id,
    resource_id: p.resource_id,
    scopes: p.scopes,
    consent_grant_id: grantId,
    expires_at: Date.now() + s.config.code_ttl * 1000,
    nonce: p.nonce,
    auth_time: p.auth_time,
    dpop_jkt: p.dpop_jkt,
  });
  redirectToClient(ctx, s, p.redirect_uri, { code, state: p.state });
}

export const activeGrant = (
  s: AuthServices,
  userId: string,
  clientId: string,
  resourceId: string,
): ConsentGrant | undefined =>
  Object.values(s.data.data.consent_grants).find(
    (g) => !g.revoked_at && g.user_id === userId && g.client_id === clientId && g.resource_id === resourceId,
  );

/**
 * Records the user's consent for a client and resource, durable before the code is issued. The page lists
 * the requested scopes: ticked ones are granted, unticked ones withdrawn, and scopes granted earlier but not
 * asked for this time stay. Withdrawing narrows what was issued under the grant: refresh tokens keep only
 * the scopes still granted, and live access tokens carrying a withdrawn scope are revoked.
 */
export async function saveGrant(
  s: AuthServices,
  userId: string,
  client: Client,
  resourceId: string,
  requested: readonly string[],
  chosen: readonly string[],
): Promise<ConsentGrant> {
  const existing = activeGrant(s, userId, client.id, resourceId);
  const now = nowIso();
  const kept = existing ? existing.scopes.filter((x) => !requested.includes(x)) : [];
  const scopes = [...new Set([...kept, ...chosen])];
  const grant: ConsentGrant = existing
    ? { ...existing, scopes, updated_at: now }
    : {
        id: newId(),
        user_id: userId,
        client_id: client.id,
        resource_id: resourceId,
        scopes,
        created_at: now,
        updated_at: now,
      };
  await s.data.commit((d) => {
    d.consent_grants[grant.id] = grant;
  });
  const withdrawn = existing ? existing.scopes.filter((x) => !scopes.includes(x)) : [];
  if (withdrawn.length > 0) await narrowIssued(s, grant, withdrawn);
  return grant;
}

async function narrowIssued(s: AuthServices, grant: ConsentGrant, withdrawn: string[]): Promise<void> {
  s.refresh.update((d) => {
    for (const r of Object.values(d.tokens))
      if (r.consent_grant_id === grant.id) r.scopes = r.scopes.filter((x) => grant.scopes.includes(x));
  });
  const now = Date.now();
  for (const i of s.issuances.where(
    (x) =>
      x.consent_grant_id === grant.id &&
      Date.parse(x.expires_at) > now &&
      x.scopes.some((sc) => withdrawn.includes(sc)),
  )) {
    await revokeJti(s, i.jti);
  }
}

/** GET /oauth/authorize (RFC 6749 §4.1.1 with PKCE S256, RFC 8707 resource, RFC 9207 iss). */
export function mountAuthorize(router: HearthRouter, s: AuthServices): void {
  router.get('/oauth/authorize', async (ctx) => {
    const q = ctx.query;
    const one = (name: string): string | undefined | null => {
      const v = q[name];
      return v === undefined || v === '' ? undefined : typeof v === 'string' ? v : null;
    };
    const clientId = one('client_id');
    let client: Client | undefined;
    if (clientId && isCimdUrl(clientId)) {
      // A client known by the URL of its metadata document: fetched (or refreshed) now.
      try {
        client = await s.cimd.resolve(s, clientId);
      } catch (err) {
        if (!(err instanceof CimdError)) throw err;
        return sendErrorPage(
          ctx,
          400,
          'Unknown application',
          `The application's metadata could not be used: ${err.message}.`,
        );
      }
    } else client = clientId ? findClient(s, clientId) : undefined;
    // RFC 9700 §4.11: never redirect for an unknown client or an unregistered redirect URI.
    if (client?.status !== 'active')
      return sendErrorPage(
        ctx,
        400,
        'Unknown application',
        'The application that sent you here is not registered.',
      );
    const redirectUri = one('redirect_uri');
    if (!redirectUri || !redirectUriMatches(client.redirect_uris, redirectUri)) {
      return sendErrorPage(
        ctx,
        400,
        'Invalid redirect',
        'The redirect address of this request is not registered for the application.',
      );
    }
    const state = one('state');
    const fail = (error: string, description: string) =>
      redirectToClient(ctx, s, redirectUri, {
        error,
        error_description: description,
        state: state ?? undefined,
      });
    // Request objects are not supported (discovery: request_parameter_supported and
    // request_uri_parameter_supported false). OpenID Connect Core §6 and RFC 9101 §6.3: refuse them, never
    // serve the request from its other parameters as if they were absent.
    if (q.request !== undefined)
      return fail('request_not_supported', 'request objects (the request parameter) are not supported');
    if (q.request_uri !== undefined)
      return fail('request_uri_not_supported', 'the request_uri parameter is not supported');
    const dup = [
      'response_type',
      'code_challenge',
      'code_challenge_method',
      'scope',
      'state',
      'nonce',
      'prompt',
      'max_age',
      'dpop_jkt',
    ].find((n) => one(n) === null);
    if (dup) return fail('invalid_request', `parameter ${dup} must appear once`);
    // RFC 8707 §2: a request this server cannot honour for several resources at once is invalid_target
    if (one('resource') === null) return fail('invalid_target', 'one resource per authorization request');
    if (one('response_type') !== 'code')
      return fail('unsupported_response_type', 'only response_type=code is supported');
    if (!client.grant_types.includes('authorization_code'))
      return fail('unauthorized_client', 'client may not use the code flow');
    const challenge = one('code_challenge');
    if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE)'); // RFC 9700 §2.1.1
    if (one('code_challenge_method') !== 'S256')
      return fail('invalid_request', 'code_challenge_method must be S256');
    if (!CHALLENGE.test(challenge)) return fail('invalid_request', 'malformed code_challenge');
    const resources = Object.values(s.data.data.resources);
    const resourceParam = one('resource');
    const requested = one('scope');
    const asked = requested ? parseScope(requested) : [];
    // OpenID Connect sign-in without a resource (what OpenID clients send): the userinfo resource.
    const identityOnly = asked.length > 0 && asked.every(isIdentityScope);
    const resource = resourceParam
      ? resources.find((r) => r.uri === resourceParam)
      : identityOnly
        ? resources.find((r) => r.uri === USERINFO_URI)
        : resources.length === 1
          ? resources[0]
          : undefined;
    if (!resource) return fail('invalid_target', resourceParam ? 'unknown resource' : 'resource is required');
    const own = resource.scopes.map((x) => x.name);
    const offered = [...new Set([...own, ...IDENTITY_SCOPE_NAMES])];
    const scopes = requested ? asked : own;
    if (scopes.length === 0 || !isSubset(scopes, offered))
      return fail('invalid_scope', 'the resource does not offer the requested scope');
    const prompt = parseScope(one('prompt') ?? '');
    const maxAge = one('max_age');
    if (maxAge !== undefined && !/^\d{1,9}$/.test(maxAge ?? ''))
      return fail('invalid_request', 'max_age must be a non-negative integer');

    // RFC 9449 §10: the code is bound to this key thumbprint (RFC 7638, base64url SHA-256). A server
    // without DPoP ignores the parameter, as it would any unknown one.
    const dpopJkt = s.dpop.enabled ? one('dpop_jkt') : undefined;
    if (dpopJkt !== undefined && !JKT.test(dpopJkt ?? ''))
      return fail('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint');

    const found = currentSession(ctx, s);
    // OpenID Connect Core §3.1.2.1: prompt=login and an exceeded max_age ask the user to sign in again.
    const stale = found && maxAge ? Date.now() - found.created_at > Number(maxAge) * 1000 : false;
    const session = prompt.includes('login') || stale ? null : found;
    if (!session) {
      if (prompt.includes('none')) return fail('login_required', 'the user is not signed in');
      // Back to this request without prompt and max_age, or signing in would ask for it again forever.
      const again = new URL(ctx.url, 'http://x');
      again.searchParams.delete('prompt');
      again.searchParams.delete('max_age');
      ctx.redirect(`/login?redirect=${encodeURIComponent(again.pathname + again.search)}`);
      ctx.status = 303;
      return;
    }
    const request = {
      client_id: client.id,
      redirect_uri: redirectUri,
      state: state ?? undefined,
      code_challenge: challenge,
      resource_id: resource.id,
      scopes,
      user_id: session.user.id,
      nonce: one('nonce') ?? undefined,
      auth_time: Math.floor(session.created_at / 1000),
      ...(dpopJkt ? { dpop_jkt: dpopJkt } : {}),
    };
    // A stored consent that covers the request is reused (the consent screen is shown once per grant, README "Browser pages").
    const grant = activeGrant(s, session.user.id, client.id, resource.id);
    if (grant && isSubset(scopes, grant.scopes)) return completeAuthorization(ctx, s, request, grant.id);
    if (prompt.includes('none'))
      return fail('consent_required', 'the user has not consented to this request');
    const pendingId = s.pending.add(request);
    ctx.redirect(`/consent?session_id=${encodeURIComponent(pendingId)}`);
    ctx.status = 303;
  });
}
