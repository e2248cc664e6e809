import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { brokerGrantView, grantsOfUser, revokeBrokerGrants } from '../broker/grants.ts';
import { newId } from '../domain/secrets.ts';
import { announceSuspended, revokeWhere } from '../oauth/issue.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { User } from '../state/model.ts';
import { auditAdmin, badInput, conflict, intQuery, jsonBody, missing, param, str } from './util.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

export const userView = (u: User) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  status: u.status,
  provider: u.provider,
  created_at: u.created_at,
});

function get(s: AuthServices, ctx: Context): User {
  const u = own(s.data.data.users, param(ctx, 'id'));
  if (!u) throw missing('user_not_found', 'unknown user');
  return u;
}

function checkEmail(s: AuthServices, email: string, selfId?: string): string {
  const e = email.trim();
  if (!EMAIL.test(e)) throw badInput('email is not a valid address');
  const taken = Object.values(s.data.data.users).some(
    (u) => u.id !== selfId && u.email.toLowerCase() === e.toLowerCase(),
  );
  if (taken) throw conflict('user_exists', 'a user with this email already exists');
  return e;
}

function checkPassword(password: string): void {
  if (password.length < 8 || password.length > 1024) throw badInput('password must be 8–1024 characters');
}

const liveIssuances = (s: AuthServices, userId: string) =>
  s.issuances.where(
    (i) =>
      i.subject_user_id === userId && !s.issuances.isRevoked(i.jti) && Date.parse(i.expires_at) > Date.now(),
  );

export function mountAdminUsers(r: HearthRouter, s: AuthServices): void {
  r.get('/users', (ctx) => {
    ctx.body = Object.values(s.data.data.users)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map(userView);
  });

  r.post('/users', async (ctx) => {
    const b = jsonBody(ctx);
    const email = checkEmail(s, str(b, 'email', true));
    const name = str(b, 'name', true);
    const password = str(b, 'password', true);
    const role = str(b, 'role', true);
    if (role !== 'admin' && role !== 'user') throw badInput('role must be admin or user');
    checkPassword(password);
    const now = nowIso();
    const user: User = {
      id: newId(),
      email,
      name,
      role,
      status: 'active',
      provider: 'local',
      password_hash: await s.passwords.hash(password),
      created_at: now,
      updated_at: now,
    };
    await s.data.commit((d) => {
      d.users[user.id] = user;
    });
    auditAdmin(s, ctx, 'user.created', { detail: user.id });
    ctx.status = 201;
    ctx.body = userView(user);
  });

  r.get('/users/:id', (ctx) => {
    ctx.body = userView(get(s, ctx));
  });

  r.patch('/users/:id', async (ctx) => {
    const u = get(s, ctx);
    const b = jsonBody(ctx);
    const email = str(b, 'email', false);
    const name = str(b, 'name', false);
    const password = str(b, 'password', false);
    if (password !== undefined) checkPassword(password);
    const next: User = { ...u, updated_at: nowIso() };
    if (email !== undefined) next.email = checkEmail(s, email, u.id);
    if (name !== undefined) next.name = name;
    if (password !== undefined) next.password_hash = await s.passwords.hash(password);
    await s.data.commit((d) => {
      d.users[u.id] = next;
    });
    // A new password ends every browser session signed in with the old one.
    if (password !== undefined) {
      await s.sessions.endUser(u.id);
      s.pending.dropUser(u.id);
    }
    auditAdmin(s, ctx, password !== undefined ? 'user.password_changed' : 'user.updated', { detail: u.id });
    ctx.body = userView(next);
  });

  r.delete('/users/:id', async (ctx) => {
    const u = get(s, ctx);
    const live = liveIssuances(s, u.id).length;
    if (live > 0 && ctx.query.force !== 'true')
      throw conflict('user_has_tokens', `user has ${live} live tokens; use force=true`);
    await revokeWhere(s, { user_id: u.id });
    s.pending.dropUser(u.id);
    await s.sessions.endUser(u.id);
    await revokeBrokerGrants(s, (g) => g.user_id === u.id);
    await s.data.commit((d) => {
      delete d.users[u.id];
      for (const g of Object.values(d.consent_grants))
        if (g.user_id === u.id && !g.revoked_at) g.revoked_at = nowIso();
    });
    auditAdmin(s, ctx, 'user.deleted', { detail: u.id });
    ctx.status = 204;
  });

  for (const [verb, from, to] of [
    ['disable', 'active', 'disabled'],
    ['enable', 'disabled', 'active'],
  ] as const) {
    r.patch(`/users/:id/${verb}`, async (ctx) => {
      const u = get(s, ctx);
      if (u.status !== from)
        throw conflict('invalid_transition', `cannot ${verb} a user that is ${u.status}`);
      await s.data.commit((d) => {
        const x = own(d.users, u.id);
        if (x) {
          x.status = to;
          x.updated_at = nowIso();
        }
      });
      // Disabling ends the user's sessions for good (enabling again does not revive them) and blocks
      // pending authorizations.
      if (to === 'disabled') {
        await s.sessions.endUser(u.id);
        s.pending.dropUser(u.id);
        announceSuspended(s, { user_id: u.id });
      }
      auditAdmin(s, ctx, to === 'disabled' ? 'user.disabled' : 'user.updated', { detail: u.id });
      ctx.body = { status: to };
    });
  }

  r.get('/users/:id/grants', (ctx) => {
    const u = get(s, ctx);
    ctx.body = {
      consent_grants: Object.values(s.data.data.consent_grants).filter((g) => g.user_id === u.id),
      broker_grants: grantsOfUser(s, u.id).map(brokerGrantView),
    };
  });

  r.get('/users/:id/tokens', (ctx) => {
    const u = get(s, ctx);
    const limit = intQuery(ctx, 'limit', 100, 1000);
    const offset = intQuery(ctx, 'offset', 0, 100_000);
    const tokens = s.issuances.query({ user: u.id, limit, offset }).map((i) => ({
      jti: i.jti,
      client_id: i.client_id,
      resource_id: i.resource_id,
      scopes: i.scopes,
      issued_at: i.issued_at,
      expires_at: i.expires_at,
      ...(i.revoked_at ? { revoked_at: i.revoked_at } : {}),
    }));
    ctx.body = { tokens };
  });

  // Revoke-all is a force logout: the user's tokens and browser sessions end together.
  r.delete('/users/:id/tokens', async (ctx) => {
    const u = get(s, ctx);
    const revoked = await revokeWhere(s, { user_id: u.id });
    const sessionsEnded = await s.sessions.endUser(u.id);
    s.pending.dropUser(u.id);
    auditAdmin(s, ctx, 'user.force_logout', { detail: u.id });
    ctx.body = { revoked, sessions_ended: sessionsEnded };
  });

  r.get('/users/:id/sessions', (ctx) => {
    const u = get(s, ctx);
    ctx.body = {
      sessions: s.sessions.list(u.id).map((x) => ({
        id: x.id,
        created_at: new Date(x.created_at).toISOString(),
        expires_at: new Date(x.expires_at).toISOString(),
      })),
    };
  });

  // Force logout from the browser only: tokens already issued to apps stay (DELETE …/tokens ends both).
  r.delete('/users/:id/sessions', async (ctx) => {
    const u = get(s, ctx);
    const ended = await s.sessions.endUser(u.id);
    s.pending.dropUser(u.id);
    auditAdmin(s, ctx, 'user.force_logout', { detail: `${u.id} sessions` });
    ctx.body = { ended };
  });

  r.delete('/users/:id/sessions/:session_id', async (ctx) => {
    const u = get(s, ctx);
    if (!(await s.sessions.endOne(u.id, param(ctx, 'session_id'))))
      throw missing('session_not_found', 'unknown session');
    auditAdmin(s, ctx, 'user.force_logout', { detail: `${u.id} session` });
    ctx.status = 204;
  });
}
