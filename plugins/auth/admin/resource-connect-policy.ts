import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Resource } from '../state/model.ts';
import { auditAdmin, badInput, jsonBody, missing, str, strQuery } from './util.ts';

/** An allowed return URL: absolute http(s), no fragment (the connect flow redirects there, broker/connect-routes.ts). */
export function checkReturnUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badInput('url must be an absolute URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badInput('url must be http or https');
  if (u.hash || url.includes('#')) throw badInput('url must not contain a fragment');
  return url;
}

/**
 * `/admin/resources/{slug}/policy/connect/allowed-return-urls`: GET the list, POST `{url}`, DELETE `?url=`.
 * `/connect/{provider}` sends the browser back only to a URL listed here for the resource.
 */
export function mountConnectPolicy(
  r: HearthRouter,
  s: AuthServices,
  bySlug: (ctx: Context) => Resource,
): void {
  const path = '/resources/:slug/policy/connect/allowed-return-urls';
  const list = (x: Resource) => x.policy.connect?.allowed_return_urls ?? [];
  const write = async (x: Resource, urls: string[]) => {
    await s.data.commit((d) => {
      const y = own(d.resources, x.id);
      if (!y) return;
      y.policy.connect = { allowed_return_urls: urls };
      y.updated_at = nowIso();
    });
  };
  r.get(path, (ctx) => {
    ctx.body = { allowed_return_urls: list(bySlug(ctx)) };
  });
  r.post(path, async (ctx) => {
    const x = bySlug(ctx);
    const url = checkReturnUrl(str(jsonBody(ctx), 'url', true));
    const urls = list(x).includes(url) ? list(x) : [...list(x), url];
    await write(x, urls);
    auditAdmin(s, ctx, 'resource.policy.connect.allowed_return_url.added', { detail: `${x.slug} ${url}` });
    ctx.status = 201;
    ctx.body = { allowed_return_urls: urls };
  });
  r.delete(path, async (ctx) => {
    const x = bySlug(ctx);
    const url = strQuery(ctx, 'url');
    if (!url) throw badInput('query url is required');
    if (!list(x).includes(url)) throw missing('url_not_listed', 'url is not in this list');
    await write(
      x,
      list(x).filter((u) => u !== url),
    );
    auditAdmin(s, ctx, 'resource.policy.connect.allowed_return_url.removed', { detail: `${x.slug} ${url}` });
    ctx.status = 204;
  });
}
