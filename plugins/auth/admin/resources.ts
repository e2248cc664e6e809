import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { findBrokerProvider } from '../broker/providers.ts';
import { isScopeToken } from '../domain/scopes.ts';
import { newId } from '../domain/secrets.ts';
import { revokeWhere } from '../oauth/issue.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Resource, ScopeDef } from '../state/model.ts';
import { frontingConflict, linkKey, linksOf } from './fronting.ts';
import { mountClientPolicyLists } from './resource-client-lists.ts';
import { checkReturnUrl, mountConnectPolicy } from './resource-connect-policy.ts';
import { auditAdmin, badInput, conflict, jsonBody, missing, param, str, strQuery } from './util.ts';

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const resourceView = (r: Resource) => ({
  id: r.id,
  slug: r.slug,
  uri: r.uri,
  backend_kind: r.backend_kind,
  broker_provider_id: r.broker_provider_id ?? '',
  display_name: r.display_name,
  scopes: r.scopes,
  // spec: `connect` is omitted for minted resources (shown when a list was stored anyway)
  policy:
    r.backend_kind === 'broker'
      ? { ...r.policy, connect: r.policy.connect ?? { allowed_return_urls: [] } }
      : r.policy.connect?.allowed_return_urls.length
        ? r.policy
        : { exchange: r.policy.exchange, runtime: r.policy.runtime },
  created_at: r.created_at,
  updated_at: r.updated_at,
});

function readScopes(v: unknown, kind: Resource['backend_kind']): ScopeDef[] {
  if (!Array.isArray(v)) throw badInput('scopes must be an array of {name, description?}');
  const out: ScopeDef[] = [];
  for (const x of v) {
    const o = x as Record<string, unknown>;
    if (!o || typeof o.name !== 'string' || !isScopeToken(o.name))
      throw badInput('every scope needs a valid name');
    if (o.description !== undefined && typeof o.description !== 'string')
      throw badInput('scope description must be a string');
    if (o.upstream !== undefined && (kind !== 'broker' || typeof o.upstream !== 'string' || !o.upstream))
      throw badInput('upstream is a non-empty string, on scopes of broker resources only');
    if (out.some((y) => y.name === o.name)) throw badInput(`duplicate scope ${o.name}`);
    out.push({
      name: o.name,
      ...(o.description ? { description: o.description } : {}),
      ...(typeof o.upstream === 'string' ? { upstream: o.upstream } : {}),
    });
  }
  return out;
}

function readPolicy(v: unknown, current: Resource['policy']): Resource['policy'] {
  if (v === undefined) return current;
  const p = v as {
    exchange?: { allowed_client_ids?: unknown };
    runtime?: { client_ids?: unknown };
    connect?: { allowed_return_urls?: unknown };
  };
  const ids = (x: unknown, name: string, def: string[]) => {
    if (x === undefined) return def;
    if (!Array.isArray(x) || !x.every((y) => typeof y === 'string'))
      throw badInput(`${name} must be an array of strings`);
    return [...new Set(x as string[])];
  };
  if (!p || typeof p !== 'object') throw badInput('policy must be an object');
  return {
    exchange: {
      allowed_client_ids: ids(
        p.exchange?.allowed_client_ids,
        'policy.exchange.allowed_client_ids',
        current.exchange.allowed_client_ids,
      ),
    },
    runtime: {
      client_ids: ids(p.runtime?.client_ids, 'policy.runtime.client_ids', current.runtime.client_ids),
    },
    ...connectPolicy(p.connect, current.connect),
  };
}

function connectPolicy(
  v: { allowed_return_urls?: unknown } | undefined,
  current: Resource['policy']['connect'],
) {
  if (v === undefined) return current ? { connect: current } : {};
  const urls = v?.allowed_return_urls;
  if (!Array.isArray(urls) || !urls.every((u) => typeof u === 'string')) {
    throw badInput('policy.connect.allowed_return_urls must be an array of strings');
  }
  return { connect: { allowed_return_urls: [...new Set((urls as string[]).map(checkReturnUrl))] } };
}

/**
 * The broker provider of a resource: required for `broker`, refused for `mint`. `broker_provider_id` or
 * `broker_provider_slug`; both given must name the same provider (400 otherwise), and the slug is resolved.
 */
function brokerProviderOf(
  s: AuthServices,
  kind: Resource['backend_kind'],
  b: Record<string, unknown>,
): string | undefined {
  const id = str(b, 'broker_provider_id', false) || undefined;
  const slug = str(b, 'broker_provider_slug', false) || undefined;
  if (kind === 'mint') {
    if (id || slug) throw badInput('a minted resource has no broker provider');
    return undefined;
  }
  if (!id && !slug) throw badInput('a broker resource needs broker_provider_id or broker_provider_slug');
  const bySlug = slug ? Object.values(s.broker.data.providers).find((p) => p.slug === slug) : undefined;
  if (slug && !bySlug) throw badInput(`no broker provider with slug ${slug}`);
  if (id && bySlug && bySlug.id !== id)
    throw badInput('broker_provider_id and broker_provider_slug disagree');
  const provider = bySlug ?? (id ? findBrokerProvider(s, id) : undefined);
  if (!provider || (id && !bySlug && provider.id !== id)) throw badInput(`no broker provider ${id}`);
  return provider.id;
}

function checkUri(uri: string): string {
  try {
    new URL(uri);
  } catch {
    throw badInput('uri must be an absolute URI');
  }
  if (uri.includes('#')) throw badInput('uri must not contain a fragment'); // RFC 8707 §2
  return uri;
}

function checkUnique(s: AuthServices, r: Resource): void {
  for (const o of Object.values(s.data.data.resources)) {
    if (o.id === r.id) continue;
    if (o.slug === r.slug) throw conflict('resource_exists', `slug ${r.slug} is taken`);
    if (o.uri === r.uri) throw conflict('resource_exists', `uri ${r.uri} is taken`);
  }
}

export function mountAdminResources(r: HearthRouter, s: AuthServices): void {
  const byId = (ctx: Context) => {
    const x = own(s.data.data.resources, param(ctx, 'id'));
    if (!x) throw missing('resource_not_found', 'unknown resource');
    return x;
  };
  const bySlug = (ctx: Context) => {
    const x = Object.values(s.data.data.resources).find((y) => y.slug === param(ctx, 'slug'));
    if (!x) throw missing('resource_not_found', 'unknown resource');
    return x;
  };

  r.get('/resources', (ctx) => {
    const slug = strQuery(ctx, 'slug');
    ctx.body = Object.values(s.data.data.resources)
      .filter((x) => !slug || x.slug === slug)
      .map(resourceView);
  });

  r.post('/resources', async (ctx) => {
    const b = jsonBody(ctx);
    const kind = str(b, 'backend_kind', true);
    if (kind !== 'mint' && kind !== 'broker') throw badInput('backend_kind must be mint or broker');
    const providerId = brokerProviderOf(s, kind, b);
    const slug = str(b, 'slug', true).toLowerCase();
    if (!SLUG.test(slug)) throw badInput('slug must match ^[a-z0-9][a-z0-9-]{0,63}$');
    const uriIn = str(b, 'uri', true);
    const now = nowIso();
    const res: Resource = {
      id: newId(),
      slug,
      uri: uriIn ? checkUri(uriIn) : `urn:hearth:resource:${slug}`,
      backend_kind: kind,
      ...(providerId ? { broker_provider_id: providerId } : {}),
      display_name: str(b, 'display_name', true),
      scopes: readScopes(b.scopes, kind),
      policy: readPolicy(b.policy, { exchange: { allowed_client_ids: [] }, runtime: { client_ids: [] } }),
      created_at: now,
      updated_at: now,
    };
    checkUnique(s, res);
    await s.data.commit((d) => {
      d.resources[res.id] = res;
    });
    auditAdmin(s, ctx, 'resource.created', { detail: res.slug });
    ctx.status = 201;
    ctx.body = resourceView(res);
  });

  r.get('/resources/:id', (ctx) => {
    ctx.body = resourceView(byId(ctx));
  });

  r.patch('/resources/:id', async (ctx) => {
    const cur = byId(ctx);
    const b = jsonBody(ctx);
    const kind = str(b, 'backend_kind', false) ?? cur.backend_kind;
    if (kind !== 'mint' && kind !== 'broker') throw badInput('backend_kind must be mint or broker');
    if (cur.site_id && kind !== 'mint') throw conflict('resource_managed', 'a site resource stays minted');
    const next: Resource = { ...cur, backend_kind: kind, updated_at: nowIso() };
    delete next.broker_provider_id;
    const providerId =
      b.broker_provider_id === undefined && b.broker_provider_slug === undefined && kind === cur.backend_kind
        ? cur.broker_provider_id
        : brokerProviderOf(s, kind, b);
    if (providerId) next.broker_provider_id = providerId;
    const slug = str(b, 'slug', false);
    const uri = str(b, 'uri', false);
    // A site's resource follows the site: its identity and scopes are not edited here.
    if (cur.site_id && (slug !== undefined || uri !== undefined || b.scopes !== undefined)) {
      throw conflict('resource_managed', 'slug, uri and scopes of a site resource follow the lighting site');
    }
    if (slug !== undefined) {
      if (!SLUG.test(slug.toLowerCase())) throw badInput('slug must match ^[a-z0-9][a-z0-9-]{0,63}$');
      next.slug = slug.toLowerCase();
    }
    if (uri !== undefined) next.uri = checkUri(uri);
    const name = str(b, 'display_name', false);
    if (name !== undefined) next.display_name = name;
    if (b.scopes !== undefined) next.scopes = readScopes(b.scopes, kind);
    else if (kind === 'mint' && next.scopes.some((x) => x.upstream))
      throw badInput('a minted resource has no upstream scopes; send scopes too');
    next.policy = readPolicy(b.policy, cur.policy);
    checkUnique(s, next);
    await s.data.commit((d) => {
      d.resources[cur.id] = next;
    });
    auditAdmin(s, ctx, 'resource.patched', { detail: next.slug });
    ctx.body = resourceView(next);
  });

  r.delete('/resources/:id', async (ctx) => {
    const cur = byId(ctx);
    if (cur.site_id) throw conflict('resource_managed', 'delete the lighting site instead');
    if (ctx.query.cascade !== 'true' && linksOf(s, cur.id).length > 0) throw frontingConflict(s, cur);
    await deleteResource(s, cur);
    auditAdmin(s, ctx, 'resource.deleted', { detail: cur.slug });
    ctx.status = 204;
  });

  mountConnectPolicy(r, s, bySlug);

  mountClientPolicyLists(r, s, bySlug);
}

/** Removes a resource with its consent grants and live tokens (shared with the site sync). */
export async function deleteResource(s: AuthServices, res: Resource): Promise<void> {
  const grants = Object.values(s.data.data.consent_grants).filter(
    (g) => g.resource_id === res.id && !g.revoked_at,
  );
  const links = linksOf(s, res.id);
  await s.data.commit((d) => {
    delete d.resources[res.id];
    // Its fronting links go with it (cascade=true, or a lighting site that was deleted).
    for (const l of links) delete d.fronting[linkKey(l.source_id, l.target_id)];
    for (const g of grants) {
      const x = own(d.consent_grants, g.id);
      if (x) x.revoked_at = nowIso();
    }
  });
  for (const g of grants) await revokeWhere(s, { consent_grant_id: g.id });
  for (const i of s.issuances.where(
    (x) => x.resource_id === res.id && Date.parse(x.expires_at) > Date.now(),
  )) {
    await s.issuances.revoke(i.jti, Date.parse(i.expires_at));
  }
}
