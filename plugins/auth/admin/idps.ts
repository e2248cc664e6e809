import type { Context } from 'koa';
import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { JwksFetchError } from '../domain/idp-keys.ts';
import { newId } from '../domain/secrets.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Idp } from '../state/model.ts';
import { auditAdmin, badInput, bool, conflict, jsonBody, missing, param, str } from './util.ts';

/** An absolute http(s) URL without fragment, or '' (for optional members). */
function url(value: string | undefined, name: string): string {
  if (!value) return '';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw badInput(`${name} must be an absolute URL`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.hash)
    throw badInput(`${name} must be http(s) without fragment`);
  return value;
}

/** The IdP view: the record plus what the key cache holds (never key material). */
export function idpView(s: AuthServices, i: Idp) {
  const keys = s.idpKeys.info(i.id);
  return { ...i, key_ids: keys?.kids ?? [], keys_fetched_at: keys?.fetched_at ?? '' };
}

/** The body of POST and PUT: `{name, issuer, jwks_uri?, audience?, enabled?}`. */
function readIdp(b: Record<string, unknown>, cur?: Idp): Omit<Idp, 'id' | 'created_at' | 'updated_at'> {
  const name = str(b, 'name', true).trim();
  if (!name || name.length > 200) throw badInput('name must be 1–200 characters');
  const issuer = url(str(b, 'issuer', true), 'issuer');
  if (!issuer) throw badInput('issuer is required');
  return {
    name,
    issuer,
    jwks_uri: url(str(b, 'jwks_uri', false), 'jwks_uri'),
    audience: str(b, 'audience', false) ?? '',
    enabled: bool(b, 'enabled', false) ?? cur?.enabled ?? true,
  };
}

/** `/admin/idps` CRUD and `POST /admin/idps/{id}/refresh-keys`. */
export function mountAdminIdps(r: HearthRouter, s: AuthServices): void {
  const byId = (ctx: Context): Idp => {
    const x = own(s.data.data.idps, param(ctx, 'id'));
    if (!x) throw missing('idp_not_found', 'unknown identity provider');
    return x;
  };
  const checkUnique = (issuer: string, id: string) => {
    if (Object.values(s.data.data.idps).some((x) => x.issuer === issuer && x.id !== id))
      throw conflict('idp_exists', 'an identity provider with that issuer exists');
  };

  r.get('/idps', (ctx) => {
    ctx.body = Object.values(s.data.data.idps).map((i) => idpView(s, i));
  });
  r.post('/idps', async (ctx) => {
    const fields = readIdp(jsonBody(ctx));
    const id = newId();
    checkUnique(fields.issuer, id);
    const now = nowIso();
    const idp: Idp = { id, ...fields, created_at: now, updated_at: now };
    await s.data.commit((d) => {
      d.idps[id] = idp;
    });
    auditAdmin(s, ctx, 'idp.created', { detail: idp.issuer });
    ctx.status = 201;
    ctx.body = idpView(s, idp);
  });
  r.get('/idps/:id', (ctx) => {
    ctx.body = idpView(s, byId(ctx));
  });
  r.put('/idps/:id', async (ctx) => {
    const cur = byId(ctx);
    const fields = readIdp(jsonBody(ctx), cur);
    checkUnique(fields.issuer, cur.id);
    const next: Idp = { ...cur, ...fields, updated_at: nowIso() };
    await s.data.commit((d) => {
      d.idps[cur.id] = next;
    });
    // Another issuer or key location: the cached keys are no longer its keys.
    if (next.issuer !== cur.issuer || next.jwks_uri !== cur.jwks_uri) s.idpKeys.forget(cur.id);
    auditAdmin(s, ctx, 'idp.updated', { detail: next.issuer });
    ctx.body = idpView(s, next);
  });
  r.delete('/idps/:id', async (ctx) => {
    const cur = byId(ctx);
    await s.data.commit((d) => {
      delete d.idps[cur.id];
      // Its policies and subject mappings mean nothing without it.
      for (const p of Object.values(d.xaa_policies)) if (p.idp_id === cur.id) delete d.xaa_policies[p.id];
      for (const m of Object.values(d.xaa_subject_mappings))
        if (m.idp_id === cur.id) delete d.xaa_subject_mappings[m.id];
    });
    s.idpKeys.forget(cur.id);
    auditAdmin(s, ctx, 'idp.deleted', { detail: cur.issuer });
    ctx.status = 204;
  });
  r.post('/idps/:id/refresh-keys', async (ctx) => {
    const idp = byId(ctx);
    try {
      await s.idpKeys.refresh(idp);
    } catch (err) {
      if (err instanceof JwksFetchError) throw new HttpError(502, 'jwks_fetch_failed', err.message);
      throw err;
    }
    auditAdmin(s, ctx, 'idp.keys_refreshed', { detail: idp.issuer });
    ctx.body = idpView(s, idp);
  });
}
