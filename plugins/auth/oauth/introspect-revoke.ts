import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { sha256 } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { isLive } from '../sites/verify.ts';
import { own } from '../state/collections.ts';
import type { Client } from '../state/model.ts';
import { authenticateClient } from './client-auth.ts';
import { invalidClient } from './errors.ts';
import { revokeFamily, revokeJti } from './issue.ts';
import { param, readOAuthForm, required } from './params.ts';

/**
 * Refresh-token record for a presented value, when it is one of ours and the refresh grant would accept it
 * (same checks as `refreshTokenGrant`: unused, unexpired, user active, consent grant not revoked).
 */
function liveRefresh(s: AuthServices, token: string) {
  const r = own(s.refresh.data.tokens, sha256(token));
  if (!r || r.revoked_at || r.used_at || r.expires_at <= Date.now()) return undefined;
  const user = own(s.data.data.users, r.user_id);
  const grant = own(s.data.data.consent_grants, r.consent_grant_id);
  if (user?.status !== 'active' || !grant || grant.revoked_at) return undefined;
  // What a refresh would yield now: a narrowed consent narrows the token.
  const scopes = r.scopes.filter((x) => grant.scopes.includes(x));
  return scopes.length > 0 ? { ...r, scopes } : undefined;
}

/**
 * RFC 7662 with the caller restriction of docs/auth.md#behaviour-where-the-spec-is-silent: only the issuing client, or a client listed in
 * the audience resource's `runtime.client_ids`, learns that a token is active; public clients cannot
 * introspect at all.
 */
async function introspect(s: AuthServices, caller: Client, token: string): Promise<Record<string, unknown>> {
  const claims = await s.signer.verify(token);
  if (claims) {
    // RFC 7662 §2.2: revoked, or issued to a client or user that is no longer active
    if (!isLive(s, claims)) return { active: false };
    const resource = Object.values(s.data.data.resources).find((r) => r.uri === claims.aud);
    const allowed = claims.client_id === caller.id || resource?.policy.runtime.client_ids.includes(caller.id);
    if (!allowed) return { active: false };
    // RFC 9449 §6.2: a bound token is of type DPoP and carries its cnf
    return { active: true, token_type: claims.cnf ? 'DPoP' : 'Bearer', ...claims };
  }
  const r = liveRefresh(s, token);
  if (r && r.client_id === caller.id) {
    return {
      active: true,
      token_type: 'refresh_token',
      client_id: r.client_id,
      sub: r.user_id,
      scope: r.scopes.join(' '),
      iat: Math.floor(r.created_at / 1000),
      exp: Math.floor(r.expires_at / 1000),
      iss: s.issuer(),
    };
  }
  return { active: false };
}

/** RFC 7009 §2.1: a client may revoke only its own tokens; a refresh token takes its family with it. */
async function revoke(
  s: AuthServices,
  caller: Client,
  token: string,
  hint: string | undefined,
): Promise<void> {
  const tryRefresh = async () => {
    const r = own(s.refresh.data.tokens, sha256(token));
    if (!r || r.client_id !== caller.id) return false;
    await revokeFamily(s, r.family_id);
    return true;
  };
  if (hint === 'refresh_token' && (await tryRefresh())) return;
  const claims = await s.signer.verify(token);
  if (claims && claims.client_id === caller.id) {
    await revokeJti(s, claims.jti);
    return;
  }
  await tryRefresh();
}

export function mountIntrospectRevoke(router: HearthRouter, s: AuthServices): void {
  const noStore = (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
  };
  router.post('/oauth/introspect', async (ctx) => {
    const body = await readOAuthForm(ctx);
    const caller = authenticateClient(s, ctx, body);
    if (caller.token_endpoint_auth_method === 'none') throw invalidClient('public clients cannot introspect');
    const result = await introspect(s, caller, required(body, 'token'));
    // Only refusals are audited: a resource server may introspect on every request.
    if (!result.active) void s.audit.record('token.introspect_denied', { client_id: caller.id });
    noStore(ctx);
    ctx.body = result;
  });
  router.post('/oauth/revoke', async (ctx) => {
    const body = await readOAuthForm(ctx);
    const caller = authenticateClient(s, ctx, body);
    await revoke(s, caller, required(body, 'token'), param(body, 'token_type_hint'));
    void s.audit.record('token.revoked', { client_id: caller.id });
    noStore(ctx);
    ctx.status = 200; // RFC 7009 §2.2: 200 also for unknown or foreign tokens
    ctx.body = '';
  });
}
