import type { Context } from 'koa';
import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { auditAdmin, badInput, conflict, missing, param, strQuery } from '../admin/util.ts';
import { newId } from '../domain/secrets.ts';
import { type AuthServices, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import { revokeBrokerGrants } from './grants.ts';
import type { BrokerProvider } from './model.ts';
import { configText, sealConfig } from './providers.ts';
import { rawMember } from './raw-json.ts';

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const LIMIT = 64 * 1024;

/** `BrokerProviderView` as JSON text: `config_data` is spliced in as the exact text it was given. */
export function providerViewJson(s: AuthServices, p: BrokerProvider): string {
  const head = JSON.stringify({
    id: p.id,
    slug: p.slug,
    display_name: p.display_name,
    protocol: p.protocol,
  });
  const tail = JSON.stringify({ created_at: p.created_at, updated_at: p.updated_at });
  return `${head.slice(0, -1)},"config_data":${configText(s, p)},${tail.slice(1)}`;
}

function send(ctx: Context, status: number, json: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = json;
}

/**
 * The admin body read by this router itself (it has no body parser), because `config_data` must stay the
 * exact text it was sent: 415 unless JSON, 413 over 64 KiB, 400 unless an object.
 */
async function readBody(ctx: Context): Promise<{ body: Record<string, unknown>; text: string }> {
  if (!ctx.is('application/json'))
    throw new HttpError(415, 'unsupported_media_type', 'send application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) throw new HttpError(413, 'payload_too_large', 'the body is larger than 64 KiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badInput('the body is not valid JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badInput('expected a JSON object body');
  return { body: body as Record<string, unknown>, text };
}

function text(body: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || v.length > 256)
    throw badInput(`${name} is required and must be a non-empty string of at most 256 characters`);
  return v;
}

function slugOf(s: AuthServices, v: string, selfId?: string): string {
  const slug = v.toLowerCase();
  if (!SLUG.test(slug)) throw badInput('slug must match ^[a-z0-9][a-z0-9-]{0,63}$');
  if (Object.values(s.broker.data.providers).some((p) => p.slug === slug && p.id !== selfId))
    throw conflict('broker_provider_exists', `slug ${slug} is taken`);
  return slug;
}

/** `/admin/broker-providers` CRUD (spec: `BrokerProviderView`, `config_data` opaque and returned byte for byte). */
export function mountBrokerProviderAdmin(r: HearthRouter, s: AuthServices): void {
  const get = (ctx: Context) => {
    const p = own(s.broker.data.providers, param(ctx, 'id'));
    if (!p) throw missing('broker_provider_not_found', 'unknown broker provider');
    return p;
  };

  r.get('/broker-providers', (ctx) => {
    const slug = strQuery(ctx, 'slug');
    const list = Object.values(s.broker.data.providers)
      .filter((p) => !slug || p.slug === slug)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
    send(ctx, 200, `[${list.map((p) => providerViewJson(s, p)).join(',')}]`);
  });

  r.post('/broker-providers', async (ctx) => {
    const { body, text: raw } = await readBody(ctx);
    const slug = slugOf(s, text(body, 'slug', true)!);
    const config = rawMember(raw, 'config_data');
    if (body.config_data === undefined || config === undefined) throw badInput('config_data is required');
    const id = newId();
    const now = nowIso();
    const p: BrokerProvider = {
      id,
      slug,
      display_name: text(body, 'display_name', true)!,
      protocol: text(body, 'protocol', true)!,
      config_sealed: sealConfig(s, id, config),
      created_at: now,
      updated_at: now,
    };
    await s.broker.commit((d) => {
      d.providers[id] = p;
    });
    auditAdmin(s, ctx, 'broker_provider.created', { detail: slug });
    send(ctx, 201, providerViewJson(s, p));
  });

  r.get('/broker-providers/:id', (ctx) => {
    send(ctx, 200, providerViewJson(s, get(ctx)));
  });

  r.patch('/broker-providers/:id', async (ctx) => {
    const cur = get(ctx);
    const { body, text: raw } = await readBody(ctx);
    const next: BrokerProvider = { ...cur, updated_at: nowIso() };
    const slug = text(body, 'slug', false);
    if (slug !== undefined) next.slug = slugOf(s, slug, cur.id);
    const name = text(body, 'display_name', false);
    if (name !== undefined) next.display_name = name;
    const protocol = text(body, 'protocol', false);
    if (protocol !== undefined) next.protocol = protocol;
    if (body.config_data !== undefined)
      next.config_sealed = sealConfig(s, cur.id, rawMember(raw, 'config_data')!);
    await s.broker.commit((d) => {
      d.providers[cur.id] = next;
    });
    auditAdmin(s, ctx, 'broker_provider.patched', { detail: next.slug });
    send(ctx, 200, providerViewJson(s, next));
  });

  r.delete('/broker-providers/:id', async (ctx) => {
    const cur = get(ctx);
    const users = Object.values(s.data.data.resources).filter((x) => x.broker_provider_id === cur.id);
    if (users.length > 0)
      throw conflict(
        'broker_provider_in_use',
        `resources ${users.map((x) => x.slug).join(', ')} use this provider; delete or repoint them first`,
      );
    // Its grants end with it: the credentials are wiped, the records stay as history.
    await revokeBrokerGrants(s, (g) => g.broker_provider_id === cur.id);
    await s.broker.commit((d) => {
      delete d.providers[cur.id];
    });
    auditAdmin(s, ctx, 'broker_provider.deleted', { detail: cur.slug });
    ctx.status = 204;
  });
}
