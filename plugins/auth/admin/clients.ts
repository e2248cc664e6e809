import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { hashSecret, randomToken } from '../domain/secrets.ts';
import { announceSuspended, revokeWhere } from '../oauth/issue.ts';
import { type AuthServices, nowIso } from '../services.ts';
import {
  buildClient,
  type ClientInput,
  ClientMetadataError,
  clientView,
  validateClientInput,
} from '../state/client-factory.ts';
import { own } from '../state/collections.ts';
import type { Client, ClientStatus } from '../state/model.ts';
import {
  auditAdmin,
  badInput,
  bool,
  conflict,
  intQuery,
  jsonBody,
  missing,
  param,
  str,
  strArray,
  strQuery,
} from './util.ts';

const CLIENT_ID = /^[A-Za-z0-9._-]{3,64}$/;

function get(s: AuthServices, ctx: Context): Client {
  const c = own(s.data.data.clients, param(ctx, 'id'));
  if (!c) throw missing('client_not_found', 'unknown client');
  return c;
}

const asBadInput = (err: unknown): never => {
  if (err instanceof ClientMetadataError) throw badInput(err.message);
  throw err;
};

/** Native when any redirect URI is loopback or a private-use scheme; web otherwise. */
const guessAppType = (uris: string[]): 'web' | 'native' =>
  uris.some((u) => /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(u) || !/^https?:/.test(u))
    ? 'native'
    : 'web';

// Valid status transitions (docs/auth.md#behaviour-where-the-spec-is-silent): suspend only from active, reactivate only from suspended.
const TRANSITIONS: Record<string, { from: ClientStatus[]; to: ClientStatus; action: string }> = {
  suspend: { from: ['active'], to: 'suspended', action: 'client.suspended' },
  reactivate: { from: ['suspended'], to: 'active', action: 'client.updated' },
  revoke: { from: ['active', 'suspended'], to: 'revoked', action: 'client.revoked' },
};

export function mountAdminClients(r: HearthRouter, s: AuthServices): void {
  r.get('/clients', (ctx) => {
    const limit = intQuery(ctx, 'limit', 100, 1000);
    const offset = intQuery(ctx, 'offset', 0, 100_000);
    const source = strQuery(ctx, 'source');
    const status = strQuery(ctx, 'status');
    ctx.body = Object.values(s.data.data.clients)
      .filter((c) => (!source || c.registration_source === source) && (!status || c.status === status))
      .sort((a, b) => a.issued_at.localeCompare(b.issued_at))
      .slice(offset, offset + limit)
      .map(clientView);
  });

  r.post('/clients', async (ctx) => {
    const b = jsonBody(ctx);
    const redirectUris = strArray(b, 'redirect_uris', true)!;
    const input: ClientInput = {
      name: str(b, 'client_name', true),
      redirect_uris: redirectUris,
      grant_types: strArray(b, 'grant_types', true)!,
      response_types: strArray(b, 'response_types', true)!,
      token_endpoint_auth_method: str(b, 'token_endpoint_auth_method', true),
      scope: str(b, 'scope', true),
      resources: strArray(b, 'resources', false) ?? [],
      application_type:
        (str(b, 'application_type', false) as 'web' | 'native' | undefined) ?? guessAppType(redirectUris),
      agent: bool(b, 'agent', true)!,
      agent_description: str(b, 'agent_description', true),
      source: 'admin',
      id_token_signed_response_alg: str(b, 'id_token_signed_response_alg', false),
    };
    if (!['web', 'native'].includes(input.application_type))
      throw badInput('application_type must be web or native');
    const wantedId = str(b, 'client_id', false);
    if (wantedId !== undefined && !CLIENT_ID.test(wantedId))
      throw badInput('client_id must be 3–64 of A-Z a-z 0-9 . _ -');
    if (wantedId !== undefined && own(s.data.data.clients, wantedId))
      throw conflict('client_exists', 'client already exists');
    // RFC 9068 §5: a machine token's `sub` is its client id, so that id must never name a user.
    if (wantedId !== undefined && own(s.data.data.users, wantedId))
      throw conflict('client_exists', 'client_id is taken by a user');
    let built: ReturnType<typeof buildClient> | undefined;
    try {
      built = buildClient(input, s.keys.hmacSecret);
    } catch (err) {
      asBadInput(err);
    }
    const { client, secret } = built!;
    if (wantedId !== undefined) client.id = wantedId;
    await s.data.commit((d) => {
      d.clients[client.id] = client;
    });
    auditAdmin(s, ctx, 'client.created_admin', { client_id: client.id });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    const v = clientView(client);
    ctx.body = {
      client_id: v.id,
      ...(secret ? { client_secret: secret } : {}),
      client_name: v.name,
      redirect_uris: v.redirect_uris,
      grant_types: v.grant_types,
      response_types: v.response_types,
      token_endpoint_auth_method: v.token_endpoint_auth_method,
      scope: v.scope,
      resources: v.resources,
      status: v.status,
      registration_source: v.registration_source,
      agent: v.agent,
      agent_description: v.agent_description,
      id_token_signed_response_alg: v.id_token_signed_response_alg,
      issued_at: v.issued_at,
    };
  });

  r.get('/clients/:id', (ctx) => {
    ctx.body = clientView(get(s, ctx));
  });

  r.patch('/clients/:id', async (ctx) => {
    const c = get(s, ctx);
    const b = jsonBody(ctx);
    if (b.agent !== undefined || b.agent_description !== undefined)
      throw badInput('agent is set at registration and cannot be changed');
    const next: Client = { ...c };
    const name = str(b, 'client_name', false);
    if (name !== undefined) next.name = name;
    next.redirect_uris = strArray(b, 'redirect_uris', false) ?? c.redirect_uris;
    next.grant_types = strArray(b, 'grant_types', false) ?? c.grant_types;
    next.resources = strArray(b, 'resources', false) ?? c.resources;
    const alg = str(b, 'id_token_signed_response_alg', false);
    if (alg !== undefined) next.id_token_signed_response_alg = alg as 'RS256' | 'ES256';
    const scope = str(b, 'scope', false);
    if (scope !== undefined) next.scope = scope.split(' ').filter(Boolean).join(' ');
    // response_types follow the grant types (only `code` exists).
    next.response_types = next.grant_types.includes('authorization_code') ? ['code'] : [];
    try {
      validateClientInput({
        ...next,
        source: next.registration_source,
        id_token_signed_response_alg: next.id_token_signed_response_alg,
      });
    } catch (err) {
      asBadInput(err);
    }
    next.updated_at = nowIso();
    await s.data.commit((d) => {
      d.clients[c.id] = next;
    });
    auditAdmin(s, ctx, 'client.updated', { client_id: c.id });
    ctx.body = clientView(next);
  });

  r.delete('/clients/:id', async (ctx) => {
    const c = get(s, ctx);
    const live = s.issuances.where(
      (i) => i.client_id === c.id && !s.issuances.isRevoked(i.jti) && Date.parse(i.expires_at) > Date.now(),
    );
    if (live.length > 0 && ctx.query.force !== 'true')
      throw conflict('client_has_tokens', `client has ${live.length} live tokens; use force=true`);
    await revokeWhere(s, { client_id: c.id });
    await s.data.commit((d) => {
      delete d.clients[c.id];
      for (const g of Object.values(d.consent_grants))
        if (g.client_id === c.id && !g.revoked_at) g.revoked_at = nowIso();
    });
    s.verifiedSecrets.forget(c.id);
    auditAdmin(s, ctx, 'client.deleted', { client_id: c.id });
    ctx.status = 204;
  });

  r.post('/clients/:id/rotate-secret', async (ctx) => {
    const c = get(s, ctx);
    if (c.token_endpoint_auth_method === 'none') throw badInput('public clients have no secret');
    const secret = randomToken();
    await s.data.commit((d) => {
      const x = own(d.clients, c.id);
      if (x) {
        x.secret_hash = hashSecret(s.keys.hmacSecret, secret);
        x.updated_at = nowIso();
      }
    });
    s.verifiedSecrets.forget(c.id); // the old secret fails anyway (its stored hash is gone); keep nothing of it
    auditAdmin(s, ctx, 'client.secret_rotated', { client_id: c.id });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { client_id: c.id, client_secret: secret };
  });

  for (const [verb, t] of Object.entries(TRANSITIONS)) {
    r.patch(`/clients/:id/${verb}`, async (ctx) => {
      const c = get(s, ctx);
      if (!t.from.includes(c.status))
        throw conflict('invalid_transition', `cannot ${verb} a client that is ${c.status}`);
      await s.data.commit((d) => {
        const x = own(d.clients, c.id);
        if (x) {
          x.status = t.to;
          x.updated_at = nowIso();
        }
      });
      if (t.to === 'revoked') await revokeWhere(s, { client_id: c.id });
      if (t.to === 'suspended') announceSuspended(s, { client_id: c.id });
      auditAdmin(s, ctx, t.action, { client_id: c.id, detail: verb });
      ctx.body = { status: t.to };
    });
  }
}
