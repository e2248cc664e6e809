/** Operator routes on the admin listener (already guarded by the admin key): sites and their keys. */

import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { asObject } from '../domain/check.ts';
import { parseLocation } from '../schedules/bodies.ts';
import type { Place } from '../schedules/slots.ts';
import type { Sites } from '../sites.ts';
import { siteName } from '../sites.ts';
import { jsonBody, param } from './context.ts';

export interface AdminDeps {
  sites: Sites;
  /** Web UI URL of a site key (`<main url>/site/<key>`). */
  uiUrl(key: string): string;
  /** Closes live sockets and stops the drivers of a deleted or re-keyed site. */
  onSiteGone(siteId: string, reason: 'deleted' | 'rekeyed'): Promise<void>;
  counts(siteId: string): { lights: number; scenes: number; groups: number; sensors: number };
  /** The site's location for sunrise and sunset (the same as the site API's `/location`). */
  location: { get(siteId: string): Place | null; set(siteId: string, place: Place): Promise<void> };
}

export function mountAdmin(r: HearthRouter, d: AdminDeps): void {
  r.post('/admin/sites', async (ctx) => {
    const name = siteName(asObject(jsonBody(ctx)).name);
    const site = await d.sites.create(name);
    ctx.status = 201;
    ctx.body = { ...site, url: d.uiUrl(site.sitekey) };
  });

  r.get('/admin/sites', (ctx) => {
    ctx.body = d.sites.list().map((s) => ({ ...s, ...d.counts(s.siteid) }));
  });

  r.get('/admin/sites/:id', (ctx) => {
    const s = d.sites.get(param(ctx, 'id'));
    if (!s) throw new HttpError(404, 'not_found', `no site with id ${param(ctx, 'id')}`);
    ctx.body = { ...s, ...d.counts(s.siteid) };
  });

  r.patch('/admin/sites/:id', async (ctx) => {
    const name = siteName(asObject(jsonBody(ctx)).name);
    ctx.body = await d.sites.rename(param(ctx, 'id'), name);
  });

  // The site's place for sunrise and sunset schedules, for the operator (the console's setup steps).
  const known = (id: string) => {
    if (!d.sites.get(id)) throw new HttpError(404, 'not_found', `no site with id ${id}`);
    return id;
  };
  r.get('/admin/sites/:id/location', (ctx) => {
    ctx.body = d.location.get(known(param(ctx, 'id'))) ?? { latitude: null, longitude: null };
  });
  r.put('/admin/sites/:id/location', async (ctx) => {
    const id = known(param(ctx, 'id'));
    const place = parseLocation(jsonBody(ctx));
    await d.location.set(id, place);
    ctx.body = place;
  });

  r.post('/admin/sites/:id/rotate-key', async (ctx) => {
    const site = await d.sites.rotateKey(param(ctx, 'id'));
    await d.onSiteGone(site.siteid, 'rekeyed');
    ctx.body = { ...site, url: d.uiUrl(site.sitekey) };
  });

  r.delete('/admin/sites/:id', async (ctx) => {
    await d.sites.delete(param(ctx, 'id'));
    await d.onSiteGone(param(ctx, 'id'), 'deleted');
    ctx.status = 204;
  });
}
