import type { Context } from 'koa';
import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { type AuthServices, findResource, nowIso } from '../services.ts';
import { emptyDict, own } from '../state/collections.ts';
import type { FrontingLink, Resource } from '../state/model.ts';
import { auditAdmin, badInput, conflict, jsonBody, missing, param, str } from './util.ts';

export const linkKey = (sourceId: string, targetId: string) => `${sourceId} ${targetId}`;

/** `FrontingLinkView`: the resources by slug. */
export function frontingView(s: AuthServices, l: FrontingLink) {
  return {
    source_slug: own(s.data.data.resources, l.source_id)?.slug ?? '',
    target_slug: own(s.data.data.resources, l.target_id)?.slug ?? '',
    scope_map: l.scope_map,
    created_at: l.created_at,
    created_by: l.created_by,
  };
}

/** Links that name the resource as source or target. */
export const linksOf = (s: AuthServices, resourceId: string): FrontingLink[] =>
  Object.values(s.data.data.fronting).filter((l) => l.source_id === resourceId || l.target_id === resourceId);

/**
 * A `scope_map`: at least one entry, each a scope the source offers mapped to a non-empty list of scopes
 * the target offers. Stored in a null-prototype object (the keys are outside names).
 */
function readScopeMap(v: unknown, source: Resource, target: Resource): Record<string, string[]> {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw badInput('scope_map must be an object of arrays');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length === 0) throw badInput('scope_map must hold at least one entry');
  const out = emptyDict<string[]>();
  const sourceScopes = source.scopes.map((x) => x.name);
  const targetScopes = target.scopes.map((x) => x.name);
  for (const [from, to] of entries) {
    if (!sourceScopes.includes(from)) throw badInput(`scope_map: ${from} is not a scope of ${source.slug}`);
    if (!Array.isArray(to) || to.length === 0 || !to.every((x) => typeof x === 'string'))
      throw badInput(`scope_map: ${from} must map to a non-empty array of scopes`);
    const unknown = (to as string[]).filter((x) => !targetScopes.includes(x));
    if (unknown.length > 0) throw badInput(`scope_map: ${unknown.join(', ')} not scopes of ${target.slug}`);
    out[from] = [...new Set(to as string[])];
  }
  return out;
}

/**
 * `/admin/fronting` CRUD (`?dry_run=true` validates a create without saving) and
 * `/admin/resources/{slug}/fronting`. Resources are named by slug (also id or URI on create).
 */
export function mountAdminFronting(r: HearthRouter, s: AuthServices): void {
  const resourceBy = (ref: string, what: string): Resource => {
    const x = findResource(s, ref);
    if (!x) throw badInput(`unknown ${what} resource ${ref.slice(0, 80)}`);
    return x;
  };
  const bySlug = (slug: string) => Object.values(s.data.data.resources).find((x) => x.slug === slug);
  const linkOf = (ctx: Context): FrontingLink => {
    const source = bySlug(param(ctx, 'source'));
    const target = bySlug(param(ctx, 'target'));
    const link = source && target ? own(s.data.data.fronting, linkKey(source.id, target.id)) : undefined;
    if (!link) throw missing('fronting_link_not_found', 'unknown fronting link');
    return link;
  };

  r.get('/fronting', (ctx) => {
    ctx.body = Object.values(s.data.data.fronting).map((l) => frontingView(s, l));
  });

  r.post('/fronting', async (ctx) => {
    const b = jsonBody(ctx);
    const source = resourceBy(str(b, 'source', true), 'source');
    const target = resourceBy(str(b, 'target', true), 'target');
    if (source.id === target.id) throw badInput('source and target must differ');
    const link: FrontingLink = {
      source_id: source.id,
      target_id: target.id,
      scope_map: readScopeMap(b.scope_map, source, target),
      created_at: nowIso(),
      created_by: 'admin',
    };
    const key = linkKey(source.id, target.id);
    if (own(s.data.data.fronting, key))
      throw conflict('fronting_link_exists', `${source.slug} already fronts ${target.slug}`);
    if (ctx.query.dry_run === 'true') {
      ctx.body = frontingView(s, link);
      return;
    }
    await s.data.commit((d) => {
      d.fronting[key] = link;
    });
    auditAdmin(s, ctx, 'fronting_link.created', { detail: `${source.slug} -> ${target.slug}` });
    ctx.status = 201;
    ctx.body = frontingView(s, link);
  });

  r.get('/fronting/:source/:target', (ctx) => {
    ctx.body = frontingView(s, linkOf(ctx));
  });

  r.patch('/fronting/:source/:target', async (ctx) => {
    const cur = linkOf(ctx);
    const b = jsonBody(ctx);
    const next = { ...cur };
    if (b.scope_map !== undefined) {
      const source = own(s.data.data.resources, cur.source_id);
      const target = own(s.data.data.resources, cur.target_id);
      if (!source || !target) throw missing('fronting_link_not_found', 'unknown fronting link');
      next.scope_map = readScopeMap(b.scope_map, source, target);
    }
    await s.data.commit((d) => {
      d.fronting[linkKey(cur.source_id, cur.target_id)] = next;
    });
    auditAdmin(s, ctx, 'fronting_link.patched', {
      detail: `${param(ctx, 'source')} -> ${param(ctx, 'target')}`,
    });
    ctx.body = frontingView(s, next);
  });

  r.delete('/fronting/:source/:target', async (ctx) => {
    const cur = linkOf(ctx);
    await s.data.commit((d) => {
      delete d.fronting[linkKey(cur.source_id, cur.target_id)];
    });
    auditAdmin(s, ctx, 'fronting_link.deleted', {
      detail: `${param(ctx, 'source')} -> ${param(ctx, 'target')}`,
    });
    ctx.status = 204;
  });

  r.get('/resources/:slug/fronting', (ctx) => {
    const res = bySlug(param(ctx, 'slug'));
    if (!res) throw missing('resource_not_found', 'unknown resource');
    const all = Object.values(s.data.data.fronting);
    ctx.body = {
      slug: res.slug,
      fronts: all.filter((l) => l.source_id === res.id).map((l) => frontingView(s, l)),
      fronted_by: all.filter((l) => l.target_id === res.id).map((l) => frontingView(s, l)),
    };
  });
}

/** The 409 `frontingLinkConflictResponse` for deleting a resource that links still name. */
export function frontingConflict(s: AuthServices, res: Resource): HttpError {
  return new HttpError(
    409,
    'fronting_link_conflict',
    `fronting links reference ${res.slug}; delete them or pass cascade=true`,
    {
      body: {
        error: 'fronting_link_conflict',
        type: 'urn:hearth:auth:error:fronting_link_conflict',
        title: 'Conflict',
        status: 409,
        detail: `fronting links reference ${res.slug}; delete them or pass cascade=true`,
        dependents: linksOf(s, res.id).map((l) => frontingView(s, l)),
      },
    },
  );
}
