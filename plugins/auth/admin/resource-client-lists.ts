import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Resource } from '../state/model.ts';
import { auditAdmin, jsonBody, missing, param, str } from './util.ts';

/**
 * The two client-id policy lists of a resource: `exchange/allowed-clients` (who may exchange tokens for
 * it; empty = any) and `runtime/client-ids` (who may act as it, e.g. introspect its tokens; empty = none).
 */
export function mountClientPolicyLists(
  r: HearthRouter,
  s: AuthServices,
  bySlug: (ctx: Context) => Resource,
): void {
  // Policy sub-resources (bodies not shown in the spec: `{client_id}` in, the list out).
  const lists = [
    ['exchange/allowed-clients', 'exchange', 'allowed_client_ids', 'resource.policy.exchange.allowed_client'],
    ['runtime/client-ids', 'runtime', 'client_ids', 'resource.policy.runtime.client'],
  ] as const;
  for (const [path, section, key, action] of lists) {
    const read = (x: Resource): string[] =>
      section === 'exchange' ? x.policy.exchange.allowed_client_ids : x.policy.runtime.client_ids;
    const write = async (x: Resource, ids: string[]) => {
      await s.data.commit((d) => {
        const y = own(d.resources, x.id);
        if (!y) return;
        if (section === 'exchange') y.policy.exchange.allowed_client_ids = ids;
        else y.policy.runtime.client_ids = ids;
        y.updated_at = nowIso();
      });
    };
    r.get(`/resources/:slug/policy/${path}`, (ctx) => {
      ctx.body = { [key]: read(bySlug(ctx)) };
    });
    r.post(`/resources/:slug/policy/${path}`, async (ctx) => {
      const x = bySlug(ctx);
      const id = str(jsonBody(ctx), 'client_id', true);
      if (!own(s.data.data.clients, id)) throw missing('client_not_found', 'unknown client');
      const ids = read(x).includes(id) ? read(x) : [...read(x), id];
      await write(x, ids);
      auditAdmin(s, ctx, `${action}.added`, { client_id: id, detail: x.slug });
      ctx.status = 201;
      ctx.body = { [key]: ids };
    });
    r.delete(`/resources/:slug/policy/${path}/:client_id`, async (ctx) => {
      const x = bySlug(ctx);
      const id = param(ctx, 'client_id');
      if (!read(x).includes(id)) throw missing('client_not_listed', 'client is not in this list');
      await write(
        x,
        read(x).filter((y) => y !== id),
      );
      auditAdmin(s, ctx, `${action}.removed`, { client_id: id, detail: x.slug });
      ctx.status = 204;
    });
  }
}
