import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { revokeJti, revokeWhere } from '../oauth/issue.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import { auditAdmin, badInput, intQuery, missing, param, strQuery, timeQuery } from './util.ts';

const DAY = 86_400_000;

/** Revokes a token and, transitively, every token exchanged from it (`parent_jti`, spec state table). */
export function mountAdminTokens(r: HearthRouter, s: AuthServices): void {
  r.get('/issuances', (ctx) => {
    const q = {
      client: strQuery(ctx, 'client'),
      user: strQuery(ctx, 'user'),
      resource: strQuery(ctx, 'resource'),
      jti: strQuery(ctx, 'jti'),
    };
    if (!q.client && !q.user && !q.resource && !q.jti)
      throw badInput('give at least one of user, client, jti, resource');
    const limit = intQuery(ctx, 'limit', 500, 5000);
    const since = timeQuery(ctx, 'since') ?? Date.now() - DAY;
    if (since < Date.now() - 30 * DAY) throw badInput('since may reach back at most 30 days');
    // A jti is a point query: no time window applies.
    const sinceMs = q.jti ? undefined : since;
    const issuances = s.issuances.query({
      ...(q.client ? { client: q.client } : {}),
      ...(q.user ? { user: q.user } : {}),
      ...(q.resource ? { resource: q.resource } : {}),
      ...(q.jti ? { jti: q.jti } : {}),
      ...(sinceMs !== undefined ? { sinceMs } : {}),
      limit,
    });
    ctx.body = {
      issuances,
      since: q.jti ? '0001-01-01T00:00:00Z' : new Date(since).toISOString(),
      count: issuances.length,
    };
  });

  const getIssuance = (ctx: Context) => {
    const i = s.issuances.get(param(ctx, 'id'));
    if (!i) throw missing('issuance_not_found', 'unknown issuance');
    return i;
  };
  r.get('/issuances/:id', (ctx) => {
    ctx.body = getIssuance(ctx);
  });
  r.delete('/issuances/:id', async (ctx) => {
    const i = getIssuance(ctx);
    await revokeJti(s, i.jti);
    auditAdmin(s, ctx, 'issuance.revoked_admin', { client_id: i.client_id, detail: i.jti });
    ctx.status = 204;
  });

  r.get('/tokens', (ctx) => {
    const limit = intQuery(ctx, 'limit', 100, 1000);
    const offset = intQuery(ctx, 'offset', 0, 100_000);
    const client = strQuery(ctx, 'client_id');
    const user = strQuery(ctx, 'user_id');
    const now = Date.now();
    // Live access tokens only: unexpired and unrevoked.
    const live = s.issuances
      .query({ ...(client ? { client } : {}), ...(user ? { user } : {}), limit: 100_000 })
      .filter((i) => !i.revoked_at && Date.parse(i.expires_at) > now);
    ctx.body = { tokens: live.slice(offset, offset + limit), count: live.length };
  });
  r.delete('/tokens/:jti', async (ctx) => {
    const i = s.issuances.get(param(ctx, 'jti'));
    if (!i) throw missing('token_not_found', 'unknown token');
    const revoked = await revokeJti(s, i.jti);
    auditAdmin(s, ctx, 'issuance.revoked_admin', { client_id: i.client_id, detail: i.jti });
    ctx.body = { revoked };
  });

  r.delete('/grants/consent/:id', async (ctx) => {
    const g = own(s.data.data.consent_grants, param(ctx, 'id'));
    if (!g) throw missing('grant_not_found', 'unknown consent grant');
    if (!g.revoked_at) {
      await s.data.commit((d) => {
        const x = own(d.consent_grants, g.id);
        if (x) x.revoked_at = nowIso();
      });
    }
    // Spec state table: tokens minted under this consent (same client and resource) go with it.
    await revokeWhere(s, { consent_grant_id: g.id });
    for (const i of s.issuances.where(
      (x) =>
        x.consent_client_id === g.client_id &&
        x.resource_id === g.resource_id &&
        x.subject_user_id === g.user_id,
    )) {
      await revokeJti(s, i.jti);
    }
    auditAdmin(s, ctx, 'consent_grant.revoked_admin', { client_id: g.client_id, detail: g.id });
    ctx.status = 204;
  });
}
