import { createHash } from 'node:crypto';
import { deleteResource } from '../admin/resources.ts';
import { IDENTITY_SCOPES, SITE_SCOPES, TRANSLATE_SCOPE } from '../domain/scopes.ts';
import { newId } from '../domain/secrets.ts';
import { type AuthServices, nowIso } from '../services.ts';
import type { Resource } from '../state/model.ts';

export const siteResourceUri = (siteId: string) => `urn:hearth:site:${encodeURIComponent(siteId)}`;
export const TRANSLATION_URI = 'urn:hearth:translation';
/** The audience of tokens that only sign a user in (OpenID Connect scopes only): the userinfo endpoint. */
export const USERINFO_URI = 'urn:hearth:userinfo';

/** A slug from the site id when it fits the slug rule, else from its hash. */
function siteSlug(siteId: string): string {
  const plain = `site-${siteId.toLowerCase()}`;
  return /^[a-z0-9][a-z0-9-]{0,63}$/.test(plain)
    ? plain
    : `site-${createHash('sha256').update(siteId).digest('hex').slice(0, 16)}`;
}

export const siteResource = (s: AuthServices, siteId: string): Resource | undefined =>
  Object.values(s.data.data.resources).find((r) => r.site_id === siteId);

function newResource(
  slug: string,
  uri: string,
  name: string,
  scopes: Resource['scopes'],
  siteId?: string,
): Resource {
  const now = nowIso();
  return {
    id: newId(),
    slug,
    uri,
    backend_kind: 'mint',
    display_name: name,
    scopes: [...scopes],
    policy: { exchange: { allowed_client_ids: [] }, runtime: { client_ids: [] } },
    ...(siteId !== undefined ? { site_id: siteId } : {}),
    created_at: now,
    updated_at: now,
  };
}

/** Each lighting site is a resource of the authorization server, created and removed with the site. */
export async function addSiteResource(s: AuthServices, siteId: string, name: string): Promise<Resource> {
  const existing = siteResource(s, siteId);
  if (existing) return existing;
  const r = newResource(
    siteSlug(siteId),
    siteResourceUri(siteId),
    `Lighting site ${name}`,
    SITE_SCOPES.map((x) => ({ ...x })),
    siteId,
  );
  await s.data.commit((d) => {
    d.resources[r.id] = r;
  });
  void s.audit.record('resource.created', { actor_id: 'lighting', detail: r.slug });
  return r;
}

export async function removeSiteResource(s: AuthServices, siteId: string): Promise<void> {
  const r = siteResource(s, siteId);
  if (!r) return;
  await deleteResource(s, r);
  void s.audit.record('resource.deleted', { actor_id: 'lighting', detail: r.slug });
}

/** Brings site resources in line with the sites that exist now, and makes sure the built-in resources exist. */
export async function syncResources(
  s: AuthServices,
  sites: Array<{ siteid: string; name: string }>,
): Promise<void> {
  for (const site of sites) await addSiteResource(s, site.siteid, site.name);
  const ids = new Set(sites.map((x) => x.siteid));
  for (const r of Object.values(s.data.data.resources))
    if (r.site_id && !ids.has(r.site_id)) await removeSiteResource(s, r.site_id);
  const builtIn = [
    newResource('translation', TRANSLATION_URI, 'Translation', [{ ...TRANSLATE_SCOPE }]),
    newResource(
      'userinfo',
      USERINFO_URI,
      'Your Hearth account',
      IDENTITY_SCOPES.map((x) => ({ ...x })),
    ),
  ];
  for (const r of builtIn) {
    const all = Object.values(s.data.data.resources);
    // An operator's resource may already use the slug; the built-in one is then left out (it is found by URI).
    if (all.some((x) => x.uri === r.uri || x.slug === r.slug)) continue;
    await s.data.commit((d) => {
      d.resources[r.id] = r;
    });
  }
}
