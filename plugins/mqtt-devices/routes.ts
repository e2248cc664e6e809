/**
 * Operator routes on the admin listener (guarded by the admin key): broker credentials (devices' and
 * operators'), the device registry, and the broker's retained messages. Every change is durable before
 * the answer (store commit). Errors: `{error, message}`.
 */
import { isUtf8 } from 'node:buffer';
import {
  assertTopicFilter,
  assertTopicName,
  type HearthRouter,
  HttpError,
  jsonObjectBody,
  type MqttApi,
  routeParam,
} from '../../core/sdk.ts';
import { parseDevice } from '../../drivers/mqtt/options.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { Credentials, OperatorAccess } from './credentials.ts';
import type { Ownership } from './ownership.ts';
import type { Registry } from './registry.ts';

export interface RouteDeps {
  lighting: LightingExports;
  credentials: Credentials;
  registry: Registry;
  ownership: Ownership;
  mqtt: Pick<MqttApi, 'retained' | 'publish'>;
  /** Operator credentials and cleared retained topics are audited here. */
  log: { info(obj: Record<string, unknown>, msg: string): void };
  zigbee2mqttBase: string;
  /** Restarts the drivers of the sites whose device lists changed. */
  devicesChanged(sites: string[]): Promise<void>;
}

export const bad = (message: string) => new HttpError(400, 'invalid_request', message);

const body = jsonObjectBody;

const param = routeParam;

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

export function topicList(raw: unknown): string[] | null {
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

function operatorAccess(raw: unknown): OperatorAccess | null {
  if (raw === undefined || raw === null || raw === false) return null;
  if (raw === true || raw === 'read') return 'read';
  if (raw === 'readwrite') return 'readwrite';
  throw bad('operator must be "read" or "readwrite"');
}

/** Payloads up to this size that are valid UTF-8 are shown as text in the retained list. */
const TEXT_PREVIEW = 1024;

function queryFilter(raw: unknown, fallback: string): string {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string') throw bad('filter must be given once');
  try {
    assertTopicFilter(raw);
  } catch (err) {
    throw bad((err as Error).message);
  }
  return raw;
}

function queryLimit(raw: unknown): number {
  if (raw === undefined) return 1000;
  const n = typeof raw === 'string' && /^[0-9]{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= 100_000)) throw bad('limit must be an integer from 1 to 100000');
  return n;
}

async function retained(d: RouteDeps, filter: string) {
  try {
    return await d.mqtt.retained(filter);
  } catch (err) {
    // An external broker keeps its retained messages itself.
    throw new HttpError(409, 'conflict', (err as Error).message);
  }
}

export function mountRoutes(r: HearthRouter, d: RouteDeps): void {
  r.get('/credentials', (ctx) => {
    ctx.body = d.credentials.list();
  });

  r.post('/credentials', async (ctx) => {
    const b = body(ctx);
    only(b, ['username', 'site', 'topics', 'operator', 'password']);
    if (typeof b.username !== 'string') throw bad('username is required');
    if (b.password !== undefined && typeof b.password !== 'string') throw bad('password must be a string');
    const operator = operatorAccess(b.operator);
    if (operator && (b.site !== undefined || b.topics !== undefined))
      throw bad('an operator credential has no site and no topics: it sees the whole bus');
    const { credential, password } = await d.credentials.add({
      username: b.username,
      site: operator ? null : siteId(d.lighting, b.site),
      topics: operator ? null : topicList(b.topics),
      ...(operator ? { operator } : {}),
      ...(typeof b.password === 'string' ? { password: b.password } : {}),
    });
    if (operator)
      d.log.info(
        { audit: 'mqtt.operator.created', username: credential.username, access: operator },
        'MQTT operator credential created',
      );
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...credential, password };
  });

  r.delete('/credentials/:username', async (ctx) => {
    const username = param(ctx, 'username');
    const operator = d.credentials.get(username)?.operator;
    await d.credentials.remove(username);
    if (operator)
      d.log.info({ audit: 'mqtt.operator.removed', username }, 'MQTT operator credential removed');
    ctx.status = 204;
  });

  r.get('/retained', async (ctx) => {
    const filter = queryFilter(ctx.query.filter, '#');
    const limit = queryLimit(ctx.query.limit);
    const found = (await retained(d, filter)).sort((a, b) => (a.topic < b.topic ? -1 : 1));
    ctx.set('X-Total-Count', String(found.length));
    ctx.body = found.slice(0, limit).map(({ topic, payload }) => ({
      topic,
      bytes: payload.length,
      ...(payload.length <= TEXT_PREVIEW && isUtf8(payload) ? { text: payload.toString('utf8') } : {}),
    }));
  });

  // `?topic=` clears one retained message, `?filter=` every one it matches (an empty retained PUBLISH each).
  r.delete('/retained', async (ctx) => {
    const { topic, filter } = ctx.query;
    if ((topic === undefined) === (filter === undefined)) throw bad('give either topic or filter');
    let topics: string[];
    if (topic !== undefined) {
      if (typeof topic !== 'string') throw bad('topic must be given once');
      try {
        assertTopicName(topic);
      } catch (err) {
        throw bad((err as Error).message);
      }
      topics = (await retained(d, topic)).map((m) => m.topic);
      if (topics.length === 0) throw new HttpError(404, 'not_found', `no retained message on ${topic}`);
    } else {
      topics = (await retained(d, queryFilter(filter, '#'))).map((m) => m.topic);
    }
    for (const t of topics) await d.mqtt.publish(t, '', { retain: true, qos: 0 });
    d.log.info(
      { audit: 'mqtt.retained.cleared', count: topics.length, topic, filter },
      'retained messages cleared',
    );
    if (topic !== undefined) ctx.status = 204;
    else ctx.body = { cleared: topics.length, topics };
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
