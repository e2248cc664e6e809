/**
 * The household app at GET /site/<key> (spec: `{base_url}/site/<site_key>`). Plain static files, no CDN,
 * no build; assets live under /lighting/ui/ so they need no key and the page derives the key from its URL.
 * Installable: `/site/<key>/manifest.webmanifest` names the site and starts at its link; the service
 * worker (`/lighting/ui/sw.js`, allowed to control `/site/`) keeps the shell for offline use.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type HearthRouter, notFound } from '../../../core/sdk.ts';
import type { AccessControl } from '../access.ts';
import type { Sites } from '../sites.ts';
import { param } from './context.ts';
import { refuseUnknownSite } from './unknown-site.ts';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const JS = 'text/javascript; charset=utf-8';
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': JS,
  'api.js': JS,
  'home.js': JS,
  'setup.js': JS,
  'setup-part.js': JS,
  'setup-new-devices.js': JS,
  'setup-pairing.js': JS,
  'setup-lights.js': JS,
  'setup-rooms.js': JS,
  'setup-scenes.js': JS,
  'setup-buttons.js': JS,
  'setup-actions.js': JS,
  'setup-mqtt-credentials.js': JS,
  'setup-matter.js': JS,
  'forms.js': JS,
  'schedules.js': JS,
  'history.js': JS,
  'chart.js': JS,
  'readings.js': JS,
  'favourites.js': JS,
  'i18n.js': JS,
  'strings.js': JS,
  'view.js': JS,
  'words.js': JS,
  'colour.js': JS,
  'blackbody.js': JS,
  'sw.js': JS,
  'start.js': JS,
  'style.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
  'icon-192.png': 'image/png',
  'icon-512.png': 'image/png',
};
// The key is in the URL: keep it out of Referer headers and caches.
const PAGE_HEADERS = {
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

export type WebFiles = Map<string, string | Buffer>;

export async function loadWebFiles(): Promise<WebFiles> {
  const files: WebFiles = new Map();
  for (const name of Object.keys(TYPES))
    files.set(name, name.endsWith('.png') ? await readFile(WEB + name) : await readFile(WEB + name, 'utf8'));
  return files;
}

/** The page, with its manifest link pointing at this site's manifest (relative links would lose the key). */
function pageFor(files: WebFiles, key: string): string {
  const html = String(files.get('index.html'));
  return html.replace(
    'href="manifest.webmanifest"',
    `href="/site/${encodeURIComponent(key)}/manifest.webmanifest"`,
  );
}

export function mountWebPage(r: HearthRouter, access: AccessControl, sites: Sites, files: WebFiles): void {
  r.get('/:key', async (ctx) => {
    const key = param(ctx, 'key');
    if (!(await access.resolve(key, null))) return refuseUnknownSite(ctx);
    ctx.set(PAGE_HEADERS);
    ctx.type = TYPES['index.html']!;
    ctx.body = pageFor(files, key);
  });
  // Web app manifest (W3C Web Application Manifest): installs the app with this site's link as start.
  r.get('/:key/manifest.webmanifest', async (ctx) => {
    const key = param(ctx, 'key');
    const site = await access.resolve(key, null);
    if (!site) return refuseUnknownSite(ctx);
    const start = `/site/${encodeURIComponent(key)}`;
    ctx.set({
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    ctx.type = 'application/manifest+json';
    ctx.body = {
      name: `${sites.get(site.siteId)?.name ?? 'Home'} · Hearth`,
      short_name: sites.get(site.siteId)?.name ?? 'Hearth',
      start_url: start,
      scope: start,
      id: start,
      display: 'standalone',
      background_color: '#121212',
      theme_color: '#e8a33d',
      icons: [
        { src: '/lighting/ui/icon-192.png', sizes: '192x192', type: 'image/png' },
        { src: '/lighting/ui/icon-512.png', sizes: '512x512', type: 'image/png' },
        { src: '/lighting/ui/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
      ],
    };
  });
}

export function mountWebAssets(r: HearthRouter, files: WebFiles): void {
  r.get('/lighting/ui/:file', (ctx) => {
    const name = param(ctx, 'file');
    const body = name !== 'index.html' && Object.hasOwn(TYPES, name) ? files.get(name) : undefined;
    if (body === undefined) throw notFound('no such file');
    ctx.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    // The worker lives with the other files but serves the pages under /site/ (Service Workers §scope).
    if (name === 'sw.js') ctx.set('Service-Worker-Allowed', '/site/');
    ctx.type = TYPES[name]!;
    ctx.body = body;
  });
}
