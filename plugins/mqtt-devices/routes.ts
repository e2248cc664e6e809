/**
 * Operator routes on the admin listener (guarded by the admin key): device credentials and the device
 * registry. Every change is durable before the answer (store commit). Errors: `{error, message}`.
 */
import type { Context } from 'koa';
import { HttpError } from '../../core/http/errors.ts';
import type { HearthRouter } from '../../core/http/types.ts';
import { assertTopicFilter } from '../../core/mqtt/topics.ts';
import { parseDevice } from '../../drivers/mqtt/options.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { Credentials } from './credentials.ts';
import type { Ownership } from './ownership.ts';
import type { Registry } from './registry.ts';

export interface RouteDeps {
  lighting: LightingExports;
  credentials: Credentials;
  registry: Registry;
  ownership: Ownership;
  zigbee2mqttBase: string;
  /** Restarts the drivers of the sites whose device lists changed. */
  devicesChanged(sites: string[]): Promise<void>;
}

const bad = (message: string) => new HttpError(400, 'invalid_request', message);

function body(ctx: Context): Record<string, unknown> {
  if (!ctx.is('application/json'))
    throw new HttpError(415, 'unsupported_media_type', 'send a JSON body (Content-Type: application/json)');
  const b = (ctx.request as unknown as { body?: unknown }).body;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw bad('the body must be a JSON object');
  return b as Record<string, unknown>;
}

const param = (ctx: Context, name: string) =>
  (ctx as unknown as { params: Record<string, string> }).params[name] ?? '';

function only(b: Record<string, unknown>, allowed: string[]): void {
  for (const k of Object.keys(b)) if (!allowed.includes(k)) throw bad(`unknown field ${k}`);
}

/** A site id or name → the site id. */
export function siteId(lighting: LightingExports, raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw bad('site is required (site id or name)');
  const s = lighting.sites.get(raw) ?? lighting.sites.list().find((x) => x.name === raw);
  if (!s) throw new HttpError(404, 'not_found', `no site ${raw}`);
  return s.siteid;
}

function topicList(raw: unknown): string[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 32)
    throw bad('topics must be a list of 1-32 topic filters');
  return raw.map((t) => {
    if (typeof t !== 'string') throw bad('topics must be strings');
    try {
      assertTopicFilter(t);
    } catch (err) {
      throw bad((err as Error).message);
    }
    if (t === '#' || t.startsWith('+') || t.startsWith('hearth'))
      throw bad(`topic filter ${t} reaches beyond the device's own topics`);
    return t;
  });
}

export function mountRoutes(r: HearthRouter, d: RouteDeps): void {
  r.get('/credentials', (ctx) => {
    ctx.body = d.credentials.list();
  });

  r.post('/credentials', async (ctx) => {
    const b = body(ctx);
    only(b, ['username', 'site', 'topics', 'password']);
    if (typeof b.username !== 'string') throw bad('username is required');
    if (b.password !== undefined && typeof b.password !== 'string') throw bad('password must be a string');
    const { credential, password } = await d.credentials.add({
      username: b.username,
      site: siteId(d.lighting, b.site),
      topics: topicList(b.topics),
      ...(typeof b.password === 'string' ? { password: b.password } : {}),
    });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...credential, password };
  });

  r.delete('/credentials/:username', async (ctx) => {
    await d.credentials.remove(param(ctx, 'username'));
    ctx.status = 204;
  });

  r.get('/devices', (ctx) => {
    const site = typeof ctx.query.site === 'string' ? siteId(d.lighting, ctx.query.site) : null;
    ctx.body = d.registry
      .all()
      .filter((x) => !site || x.site === site)
      .map((x) => d.registry.view(x));
  });

  r.post('/devices', async (ctx) => {
    const b = body(ctx);
    only(b, [
      'protocolid',
      'mqttid',
      'site',
      'kind',
      'name',
      'events',
      'profile',
      'address',
      'component',
      'channel',
      'ha',
    ]);
    const site = siteId(d.lighting, b.site);
    const protocolid = b.protocolid ?? b.mqttid;
    let device: ReturnType<typeof parseDevice>;
    try {
      device = parseDevice({ ...b, protocolid }, { zigbee2mqttBase: d.zigbee2mqttBase });
    } catch (err) {
      throw bad((err as Error).message);
    }
    // A device belongs to one site: not one whose light or sensor on another site already names it.
    if (d.ownership.otherOwner(site, device.protocolid) !== null)
      throw new HttpError(409, 'conflict', `MQTT device ${device.protocolid} belongs to another site`);
    const rec = await d.registry.register(site, device);
    await d.devicesChanged([site]);
    ctx.status = 201;
    ctx.body = d.registry.view(rec);
  });

  r.patch('/devices/:id', async (ctx) => {
    const b = body(ctx);
    only(b, ['site', 'new', 'name']);
    const before = d.registry.require(param(ctx, 'id'));
    const oldSite = before.site;
    if (b.new !== undefined && b.new !== false)
      throw bad('new can only be set to false (accepting the device)');
    if (b.name !== undefined && (typeof b.name !== 'string' || b.name.length > 100))
      throw bad('name must be a string');
    const change: { site?: string; new?: boolean; name?: string } = {};
    if (b.site !== undefined) change.site = siteId(d.lighting, b.site);
    if (b.new === false) change.new = false;
    if (typeof b.name === 'string') change.name = b.name;
    const rec = await d.registry.patch(before.protocolid, change);
    if (change.site && change.site !== oldSite) await d.devicesChanged([oldSite, change.site]);
    ctx.body = d.registry.view(rec);
  });

  r.delete('/devices/:id', async (ctx) => {
    const rec = d.registry.require(param(ctx, 'id'));
    await d.registry.remove(rec.protocolid);
    await d.devicesChanged([rec.site]);
    ctx.status = 204;
  });
}
