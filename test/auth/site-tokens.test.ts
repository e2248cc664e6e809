import { decodeJwt } from 'jose';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import type { AuthExports } from '../../plugins/auth/index.ts';
import { type AuthHub, adminClient, startAuthHub } from './helpers.ts';

interface Site {
  siteid: string;
  sitekey: string;
}

let h: AuthHub;
let siteA: Site;
let siteB: Site;
let authExports: AuthExports | undefined;
const revokedEvents: Array<{ jti: string; aud: string }> = [];

/** A tiny plugin that hands the auth exports to the test, the way the translation plugin would use them. */
const probe: PluginDefinition = {
  name: 'probe',
  version: '0.0.0',
  description: 'test probe',
  requires: ['auth'],
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    authExports = ctx.use('auth');
    ctx.bus.on('auth.token.revoked', (e) => {
      revokedEvents.push(e);
    });
    return { stop() {} };
  },
};

/** A client-credentials client for the site (ceiling `ceiling`) and a token it got for `scope`. */
async function clientAndToken(
  site: Site,
  scope: string,
  ceiling = scope,
): Promise<{ clientId: string; token: string }> {
  const uri = `urn:hearth:site:${site.siteid}`;
  const c = await adminClient(h, { client_name: 'wall switch', scope: ceiling, resources: [uri] });
  const res = await fetch(`${h.auth}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: uri, scope }),
  });
  expect(res.status).toBe(200);
  return { clientId: c.client_id, token: ((await res.json()) as { access_token: string }).access_token };
}

async function tokenFor(site: Site, scope: string, ceiling = scope): Promise<string> {
  return (await clientAndToken(site, scope, ceiling)).token;
}

const api = (site: Site, path: string, token: string, init: RequestInit = {}) =>
  fetch(`${h.url}/api/site/${site.siteid}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

beforeAll(async () => {
  h = await startAuthHub({ extraPlugins: [probe] });
  siteA = (await h.admin('POST', '/admin/sites', { name: 'Flat A' })).body as Site;
  siteB = (await h.admin('POST', '/admin/sites', { name: 'Flat B' })).body as Site;
});
afterAll(async () => {
  await h?.stop();
});

describe('site resources follow the lighting sites', () => {
  test('each site is a resource with the site scopes; deleting the site removes it', async () => {
    const uris = () =>
      h.admin('GET', '/admin/resources').then((r) => (r.body as Array<{ uri: string }>).map((x) => x.uri));
    expect(await uris()).toEqual(
      expect.arrayContaining([
        `urn:hearth:site:${siteA.siteid}`,
        `urn:hearth:site:${siteB.siteid}`,
        'urn:hearth:translation',
      ]),
    );
    const temp = (await h.admin('POST', '/admin/sites', { name: 'Temp' })).body as Site;
    const token = await tokenFor(temp, 'lights:read');
    expect((await api(temp, '/light', token)).status).toBe(200);
    expect((await h.admin('DELETE', `/admin/sites/${temp.siteid}`)).status).toBe(204);
    expect(await uris()).not.toContain(`urn:hearth:site:${temp.siteid}`);
  });
});

describe('site API with Authorization: Bearer', () => {
  test('a wall switch token presses buttons but cannot rename lights, and is refused on another site', async () => {
    const token = await tokenFor(siteA, 'lights:read scenes:apply lights:write');
    expect((await api(siteA, '/light', token)).status).toBe(200);
    const rename = await api(siteA, '/light', token, {
      method: 'PUT',
      body: JSON.stringify({ _id: 'x', name: 'Hall' }),
    });
    expect(rename.status).toBe(403);
    expect((await api(siteB, '/light', token)).status).toBe(404);
    // A forged audience does not help: the signature breaks.
    const [hd, , sig] = token.split('.');
    const claims = { ...decodeJwt(token), aud: `urn:hearth:site:${siteB.siteid}` };
    const forged = `${hd}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    expect((await api(siteB, '/light', forged)).status).toBe(404);
  });

  test('the wall switch of the README (scenes:apply lights:write sensors:write) presses its button and applies scenes, but cannot rename', async () => {
    const byKey = async (method: string, p: string, body: unknown) => {
      const res = await fetch(`${h.url}/api/site/${siteA.sitekey}${p}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { _id: string };
      expect(res.status, `${p} ${JSON.stringify(json)}`).toBeLessThan(300);
      return json;
    };
    const scene = await byKey('POST', '/scene', { name: 'Evening', state: [] });
    const button = await byKey('POST', '/sensor', {
      name: 'Hall switch',
      vendor: 'enocean',
      enoceanid: 'feedbeef',
      type: 'button',
    });
    const token = await tokenFor(siteA, 'scenes:apply lights:write sensors:write');
    const press = await api(siteA, '/sensor/event', token, {
      method: 'POST',
      body: JSON.stringify({ _id: button._id, event: '1' }),
    });
    expect(press.status).toBe(202);
    const apply = await api(siteA, '/scene/apply', token, {
      method: 'PUT',
      body: JSON.stringify({ _id: scene._id }),
    });
    expect(apply.status).toBeLessThan(300);
    for (const [method, p, body] of [
      ['PUT', '/light', { _id: 'x', name: 'Hall' }],
      ['PUT', '/sensor', { _id: button._id, name: 'Renamed' }],
      ['PUT', '/scene', { _id: scene._id, name: 'Renamed' }],
    ] as const) {
      const res = await api(siteA, p, token, { method, body: JSON.stringify(body) });
      expect(res.status, p).toBe(403);
    }
  });

  test('a token is accepted only in the Authorization header, never in the query (docs/auth.md#security-checklist; RFC 6750 §2.3 is not offered)', async () => {
    const token = await tokenFor(siteA, 'lights:read');
    const q = await fetch(
      `${h.url}/api/site/${siteA.siteid}/light?access_token=${encodeURIComponent(token)}`,
    );
    expect(q.status).toBe(404);
    expect((await api(siteA, '/light', token)).status).toBe(200);
  });

  test('revocation takes effect immediately (in-process revoked set)', async () => {
    const token = await tokenFor(siteA, 'lights:read');
    expect((await api(siteA, '/light', token)).status).toBe(200);
    const res = await h.admin('DELETE', `/admin/tokens/${decodeJwt(token).jti}`);
    expect(res.body).toEqual({ revoked: 1 });
    expect((await api(siteA, '/light', token)).status).toBe(404);
    // Plugins holding connections made with it are told.
    expect(revokedEvents).toContainEqual(
      expect.objectContaining({ jti: decodeJwt(token).jti, aud: `urn:hearth:site:${siteA.siteid}` }),
    );
  });

  test('a suspended client loses access at once', async () => {
    const uri = `urn:hearth:site:${siteA.siteid}`;
    const { clientId, token } = await clientAndToken(siteA, 'lights:read');
    expect((await api(siteA, '/light', token)).status).toBe(200);
    await h.admin('PATCH', `/admin/clients/${clientId}/suspend`);
    expect((await api(siteA, '/light', token)).status).toBe(404);
    // Holders of connections opened with it are told to drop them, as for a revocation.
    expect(revokedEvents).toContainEqual(expect.objectContaining({ jti: decodeJwt(token).jti, aud: uri }));
  });
});

describe('site WebSocket', () => {
  const open = (site: Site, token: string) =>
    new Promise<{ ws: WebSocket; first: unknown } | { status: number }>((resolve) => {
      const ws = new WebSocket(`${h.url.replace('http', 'ws')}/api/site/${site.siteid}/ws`, {
        headers: { authorization: `Bearer ${token}` },
      });
      ws.once('message', (data) => resolve({ ws, first: JSON.parse(data.toString()) }));
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    });

  test('the token opens its own site socket and is refused on another site', async () => {
    const token = await tokenFor(siteA, 'lights:read');
    const ok = await open(siteA, token);
    expect('ws' in ok && (ok.first as { command: string }).command).toBe('hello');
    if ('ws' in ok) ok.ws.close();
    const refused = await open(siteB, token);
    expect(refused).toEqual({ status: 404 });
    // Once revoked, the token opens no socket.
    await h.admin('DELETE', `/admin/tokens/${decodeJwt(token).jti}`);
    expect(await open(siteA, token)).toEqual({ status: 404 });
  });

  test('a socket opened with a token is closed (4001) as soon as the token is revoked', async () => {
    const token = await tokenFor(siteA, 'lights:read');
    // The lighting sweep's interval is frozen on a fake clock: only the revocation itself can close it.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const opened = await open(siteA, token);
      if (!('ws' in opened)) throw new Error(`socket refused: ${opened.status}`);
      const keyed = await new Promise<WebSocket>((resolve) => {
        const ws = new WebSocket(`${h.url.replace('http', 'ws')}/api/site/${siteA.sitekey}/ws`);
        ws.once('message', () => resolve(ws));
      });
      const closed = new Promise<number>((resolve) => opened.ws.once('close', (code) => resolve(code)));
      await h.admin('DELETE', `/admin/tokens/${decodeJwt(token).jti}`);
      expect(await closed).toBe(4001);
      // The site key's socket is not the token's business.
      expect(keyed.readyState).toBe(WebSocket.OPEN);
      keyed.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** mqtt.js clients are not typed as Node EventEmitters, so `events.once` does not accept them. */
const once = (c: mqtt.MqttClient, event: 'connect' | 'error' | 'close') =>
  new Promise<unknown[]>((resolve) => {
    c.once(event, (...args: unknown[]) => resolve(args));
  });

describe('embedded MQTT broker with a site token as password', () => {
  /** Whether the broker granted each filter (mqtt.js reports a 0x80 SUBACK code as an error). */
  const suback = async (c: mqtt.MqttClient, topics: string[]) => {
    const out: boolean[] = [];
    for (const t of topics)
      out.push(await new Promise<boolean>((resolve) => c.subscribe(t, { qos: 0 }, (err) => resolve(!err))));
    return out;
  };
  const connect = async (password: string) => {
    const c = mqtt.connect(h.mqttUrl, {
      username: 'device',
      password,
      reconnectPeriod: 0,
      protocolVersion: 4,
    });
    const [res] = (await Promise.race([once(c, 'connect'), once(c, 'error')])) as [unknown];
    return { c, res };
  };

  test('subscribe and publish within the site and scopes only; revocation closes the door', async () => {
    const readerToken = await tokenFor(siteA, 'lights:read');
    const reader = await connect(readerToken);
    expect(reader.c.connected).toBe(true);
    expect(await suback(reader.c, [`hearth/${siteA.siteid}/#`, `hearth/${siteB.siteid}/#`, '#'])).toEqual([
      true,
      false,
      false,
    ]);
    const received: string[] = [];
    reader.c.on('message', (topic) => received.push(topic));

    const switchToken = await tokenFor(siteA, 'scenes:apply');
    const sw = await connect(switchToken);
    await sw.c.publishAsync(`hearth/${siteA.siteid}/scenes/evening/apply`, 'go', { qos: 1 });
    await expect.poll(() => received).toEqual([`hearth/${siteA.siteid}/scenes/evening/apply`]);

    // Renaming lights needs site:admin: the broker closes the connection (MQTT 3.1.1 has no negative PUBACK).
    const closed = once(sw.c, 'close');
    sw.c.publish(`hearth/${siteA.siteid}/config/lights/rename`, 'Hall', { qos: 1 });
    await closed;
    sw.c.end(true);

    // Site A's token on site B's topics: refused.
    const other = await connect(switchToken);
    const closedB = once(other.c, 'close');
    other.c.publish(`hearth/${siteB.siteid}/scenes/x/apply`, 'go', { qos: 1 });
    await closedB;
    other.c.end(true);

    // Revoked: the open connection is closed at once (no more deliveries on its subscription) and new
    // connections are refused.
    const readerClosed = once(reader.c, 'close');
    await h.admin('DELETE', `/admin/tokens/${decodeJwt(readerToken).jti}`);
    await readerClosed;
    const again = mqtt.connect(h.mqttUrl, { username: 'device', password: readerToken, reconnectPeriod: 0 });
    const [err] = (await once(again, 'error')) as [Error & { code?: number }];
    expect(err.code).toBe(4);
    again.end(true);
    reader.c.end(true);
    expect(received).toEqual([`hearth/${siteA.siteid}/scenes/evening/apply`]);
  });

  test('suspending the client closes its open connection', async () => {
    const { clientId, token } = await clientAndToken(siteA, 'lights:read scenes:apply');
    const conn = await connect(token);
    expect(await suback(conn.c, [`hearth/${siteA.siteid}/lights/#`])).toEqual([true]);
    const closed = once(conn.c, 'close');
    await h.admin('PATCH', `/admin/clients/${clientId}/suspend`);
    await closed;
    conn.c.end(true);
  });

  test('a password that is not a token is left to other plugins (anonymous refused here)', async () => {
    const c = mqtt.connect(h.mqttUrl, { username: 'device', password: 'not-a-token', reconnectPeriod: 0 });
    const [err] = (await once(c, 'error')) as [Error & { code?: number }];
    expect(err.code).toBe(4);
    c.end(true);
  });
});

describe('verifyAccessToken export', () => {
  test('translation-style check: scope and resource enforced', async () => {
    const c = await adminClient(h, { scope: 'translate' });
    const res = await fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:hearth:translation' }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const v = authExports!.verifyAccessToken;
    expect(await v(token, { scope: 'translate' })).toMatchObject({
      client_id: c.client_id,
      scopes: ['translate'],
    });
    expect(await v(token, { resource: 'urn:hearth:translation', scope: 'translate' })).not.toBeNull();
    expect(await v(token, { resource: `urn:hearth:site:${siteA.siteid}` })).toBeNull();
    expect(await v(token, { scope: 'lights:read' })).toBeNull();
    expect(await v('garbage')).toBeNull();
  });
});
