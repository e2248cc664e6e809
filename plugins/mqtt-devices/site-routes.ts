/**
 * The site-facing surface (main listener), authorised by the site key like the lighting site API:
 * the page `GET /mqtt/site/<key>` listing the site's MQTT devices (new and unavailable ones marked, one
 * click to add one as a light or sensor through the lighting site API), and its JSON routes; and the
 * site's own device credentials under the site API, `/api/site/<key or site id>/mqtt/credentials`, for a
 * site admin (the site key or a `site:admin` token), so a household adds an MQTT bulb without the operator.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  type HearthRouter,
  HttpError,
  jsonObjectBody,
  type RouteContext,
  routeParam,
} from '../../core/sdk.ts';
import { refuseUnknownSite } from '../lighting/routes/unknown-site.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { Credentials } from './credentials.ts';
import type { Registry } from './registry.ts';
import { bad, topicList } from './routes.ts';

export interface AuditLog {
  info(obj: Record<string, unknown>, msg: string): void;
}

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
  d: {
    lighting: LightingExports;
    registry: Registry;
    credentials: Credentials;
    log: AuditLog;
    files: Map<string, string>;
  },
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

  mountSiteCredentials(main, d);
}

/** The site a guarded request is for (`siteGuard` put it there). */
const guardedSite = (ctx: RouteContext): string => (ctx.state.site as { siteId: string }).siteId;

/**
 * A site admin's device credentials: scoped to the site exactly like the operator's per-site credentials
 * (the broker hooks know no difference); the password is shown once, in the answer to the POST. Another
 * site's or an operator's credential is not found here.
 */
function mountSiteCredentials(
  main: HearthRouter,
  d: { lighting: LightingExports; credentials: Credentials; log: AuditLog },
): void {
  const admin = d.lighting.siteGuard('site:admin');
  const path = '/api/site/:key/mqtt/credentials';

  main.get(path, admin, (ctx) => {
    const site = guardedSite(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = d.credentials.list().filter((c) => c.site === site && !c.operator);
  });

  main.post(path, admin, async (ctx) => {
    const site = guardedSite(ctx);
    const b = jsonObjectBody(ctx);
    for (const k of Object.keys(b))
      if (!['username', 'topics', 'password'].includes(k))
        throw bad(
          k === 'site' || k === 'operator'
            ? `${k} cannot be chosen here: a site's credentials reach only that site`
            : `unknown field ${k}`,
        );
    if (typeof b.username !== 'string') throw bad('username is required');
    if (b.password !== undefined && typeof b.password !== 'string') throw bad('password must be a string');
    const { credential, password } = await d.credentials.add({
      username: b.username,
      site,
      topics: topicList(b.topics),
      ...(typeof b.password === 'string' ? { password: b.password } : {}),
    });
    d.log.info(
      { audit: 'mqtt.credential.created', username: credential.username, site, by: 'site admin' },
      'MQTT device credential created by a site admin',
    );
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...credential, password };
  });

  main.delete(`${path}/:username`, admin, async (ctx) => {
    const site = guardedSite(ctx);
    const username = param(ctx, 'username');
    const c = d.credentials.get(username);
    if (!c || c.site !== site || c.operator)
      throw new HttpError(404, 'not_found', `no credential ${username} on this site`);
    await d.credentials.remove(username);
    d.log.info(
      { audit: 'mqtt.credential.removed', username, site, by: 'site admin' },
      'MQTT device credential removed by a site admin',
    );
    ctx.status = 204;
  });
}
