/**
 * The web UI at GET /site/<key> (spec: `{base_url}/site/<site_key>`). Plain static files, no CDN, no
 * build; assets live under /lighting/ui/ so they need no key and the page derives the key from its URL.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type HearthRouter, notFound } from '../../../core/sdk.ts';
import type { AccessControl } from '../access.ts';
import { param } from './context.ts';
import { refuseUnknownSite } from './unknown-site.ts';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'view.js': 'text/javascript; charset=utf-8',
  'words.js': 'text/javascript; charset=utf-8',
  'colour.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};
// The key is in the URL: keep it out of Referer headers and caches.
const PAGE_HEADERS = {
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
};

export async function loadWebFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of Object.keys(TYPES)) files.set(name, await readFile(WEB + name, 'utf8'));
  return files;
}

export function mountWebPage(r: HearthRouter, access: AccessControl, files: Map<string, string>): void {
  r.get('/:key', async (ctx) => {
    if (!(await access.resolve(param(ctx, 'key'), null))) return refuseUnknownSite(ctx);
    ctx.set(PAGE_HEADERS);
    ctx.type = TYPES['index.html']!;
    ctx.body = files.get('index.html');
  });
}

export function mountWebAssets(r: HearthRouter, files: Map<string, string>): void {
  r.get('/lighting/ui/:file', (ctx) => {
    const name = param(ctx, 'file');
    const body = name !== 'index.html' ? files.get(name) : undefined;
    if (body === undefined) throw notFound('no such file');
    ctx.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    ctx.type = TYPES[name]!;
    ctx.body = body;
  });
}
