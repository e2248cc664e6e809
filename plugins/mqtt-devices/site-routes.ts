/**
 * The site-facing surface (main listener), authorised by the site key like the lighting site API:
 * the page `GET /mqtt/site/<key>` listing the site's MQTT devices (new and unavailable ones marked, one
 * click to add one as a light or sensor through the lighting site API), and its JSON routes.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type HearthRouter, HttpError, type RouteContext, routeParam } from '../../core/sdk.ts';
import { refuseUnknownSite } from '../lighting/routes/unknown-site.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { Registry } from './registry.ts';

const WEB = fileURLToPath(new URL('./web/', import.meta.url));
const FILES: Record<string, string> = {
  'devices.html': 'text/html; charset=utf-8',
  'devices.js': 'text/javascript; charset=utf-8',
  'devices.css': 'text/css; charset=utf-8',
};
// The key is in the URL: keep it out of Referer headers and caches (as the lighting page does).
const PAGE_HEADERS = {
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'self'; connect-src 'self'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
};

export async function loadPages(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of Object.keys(FILES)) files.set(name, await readFile(WEB + name, 'utf8'));
  return files;
}

const param = routeParam;

export function mountSiteRoutes(
  main: HearthRouter,
  d: { lighting: LightingExports; registry: Registry; files: Map<string, string> },
): void {
  // Unknown and wrong keys look the same (lighting's `{message: "unknown site"}`).
  const siteOf = (ctx: RouteContext): string => {
    const id = d.lighting.sites.resolveKey(param(ctx, 'key'));
    if (!id) throw new HttpError(404, 'unknown_site', 'unknown site');
    return id;
  };

  main.get('/mqtt/site/:key', (ctx) => {
    if (!d.lighting.sites.resolveKey(param(ctx, 'key'))) return refuseUnknownSite(ctx);
    ctx.set(PAGE_HEADERS);
    ctx.type = FILES['devices.html']!;
    ctx.body = d.files.get('devices.html');
  });

  main.get('/mqtt-devices/ui/:file', (ctx) => {
    const name = param(ctx, 'file');
    // Own entries only: a file named `constructor` must not find Object's.
    const type = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (!type || name.endsWith('.html')) throw new HttpError(404, 'not_found', 'not found');
    ctx.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    ctx.type = type;
    ctx.body = d.files.get(name);
  });

  main.get('/api/mqtt/site/:key/devices', (ctx) => {
    const site = siteOf(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = d.registry.forSite(site).map((r) => d.registry.view(r));
  });

  main.post('/api/mqtt/site/:key/devices/:id/accept', async (ctx) => {
    const site = siteOf(ctx);
    const r = d.registry.get(param(ctx, 'id'));
    if (!r || r.site !== site)
      throw new HttpError(404, 'not_found', `no MQTT device ${param(ctx, 'id')} on this site`);
    ctx.body = d.registry.view(await d.registry.patch(r.protocolid, { new: false }));
  });
}
