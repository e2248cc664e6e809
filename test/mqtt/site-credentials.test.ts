/**
 * Adding an MQTT bulb needed a device credential only the operator could make. A site admin (the site key,
 * or a token with `site:admin`) now creates, lists and removes device credentials of its own site on the
 * site API; they are scoped to the site exactly like the operator's.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let cabin: { siteid: string; sitekey: string };
const TOKENS: Record<string, string[]> = { admin: ['site:admin', 'lights:read'], reader: ['lights:read'] };

beforeAll(async () => {
  h = await startMqttHub();
  cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as typeof cabin;
  h.lighting.setSiteTokenVerifier(async (token) => (TOKENS[token] ? { scopes: TOKENS[token] } : null));
});
afterAll(() => h.stop());

async function call(
  keyOrId: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${h.t.url}/api/site/${keyOrId}/mqtt/credentials${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The CONNACK return code (0 = accepted). */
async function connack(username: string, password: string): Promise<number> {
  try {
    const c = await mqtt.connectAsync(h.t.mqttUrl, { username, password, reconnectPeriod: 0 });
    await c.endAsync(true);
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

describe('adding a new MQTT bulb needs a device credential only the operator can make (regression)', () => {
  it('the site key creates one for its site, shown once, and it reaches only that site', async () => {
    const created = await call(h.sitekey, 'POST', '', { username: 'porch-bulb' });
    expect(created).toEqual({
      status: 201,
      body: {
        username: 'porch-bulb',
        site: h.siteid,
        topics: null,
        created: expect.any(String),
        password: expect.any(String),
      },
    });
    const password = created.body.password as string;
    expect(password.length).toBeGreaterThanOrEqual(24);
    // Listed without the secret, by the site's admin only.
    const listed = await call(h.sitekey, 'GET', '');
    expect(listed.body).toEqual([
      { username: 'porch-bulb', site: h.siteid, topics: null, created: expect.any(String) },
    ]);
    expect((await call(cabin.sitekey, 'GET', '')).body).toEqual([]);
    expect(JSON.stringify(h.t.logs)).not.toContain(password);
    expect(JSON.stringify(h.t.logs)).toContain('mqtt.credential.created');
    // The operator sees it like any per-site credential; on the broker it is one.
    const all = (await h.t.admin('GET', '/admin/mqtt/credentials')).body as Json[];
    expect(all).toContainEqual({
      username: 'porch-bulb',
      site: h.siteid,
      topics: null,
      created: expect.any(String),
    });
    const c = await mqtt.connectAsync(h.t.mqttUrl, { username: 'porch-bulb', password, reconnectPeriod: 0 });
    const granted = await c
      .subscribeAsync([`hearth/${h.siteid}/#`, `hearth/${cabin.siteid}/#`, 'zigbee2mqtt/#'])
      .catch((err) => err.packet);
    expect((granted.granted ?? granted.map((g: Json) => g.qos)) as number[]).toEqual([0, 128, 0]);
    await c.endAsync(true);
  });

  it('a site:admin token creates and removes one with topic filters; a token without it gets 403', async () => {
    const made = await call(
      cabin.siteid,
      'POST',
      '',
      { username: 'cabin-plug', topics: ['shellies/plug-1/#'] },
      'admin',
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ site: cabin.siteid, topics: ['shellies/plug-1/#'] });
    expect(await connack('cabin-plug', made.body.password)).toBe(0);
    expect(await call(cabin.siteid, 'POST', '', { username: 'x' }, 'reader')).toEqual({
      status: 403,
      body: { message: 'this token lacks the site:admin scope' },
    });
    expect((await call(cabin.siteid, 'GET', '', undefined, 'reader')).status).toBe(403);
    expect((await call(cabin.siteid, 'DELETE', '/cabin-plug', undefined, 'reader')).status).toBe(403);
    expect((await call(cabin.siteid, 'DELETE', '/cabin-plug', undefined, 'admin')).status).toBe(204);
    // Removed at once: refused at the next connect (CONNACK 4, bad user name or password).
    expect(await connack('cabin-plug', made.body.password)).toBe(4);
  });

  it("cannot reach another site's or an operator's credentials, choose a site, or name an operator", async () => {
    await h.t.admin('POST', '/admin/mqtt/credentials', { username: 'explorer', operator: 'read' });
    expect(await call(cabin.sitekey, 'DELETE', '/porch-bulb')).toEqual({
      status: 404,
      body: { message: 'no credential porch-bulb on this site' },
    });
    expect((await call(h.sitekey, 'DELETE', '/explorer')).status).toBe(404);
    expect((await h.t.admin('GET', '/admin/mqtt/credentials')).body).toHaveLength(2);
    for (const [body, status] of [
      [{ username: 'x', site: h.siteid }, 400],
      [{ username: 'x', operator: 'readwrite' }, 400],
      [{ username: 'x', topics: ['#'] }, 400],
      [{ username: 'x', topics: [`hearth/${h.siteid}/#`] }, 400],
      [{ username: 'bad name!' }, 400],
      [{ username: 'x', password: 'short' }, 400],
      [{}, 400],
      [{ username: 'porch-bulb' }, 409],
    ] as const) {
      const res = await call(cabin.sitekey, 'POST', '', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toEqual(expect.any(String));
    }
    // Unknown and wrong keys look like every site route's.
    expect(await call('not-a-key', 'GET', '')).toEqual({ status: 404, body: { message: 'unknown site' } });
    expect((await h.t.admin('GET', '/admin/mqtt/credentials')).body).toHaveLength(2);
  });
});
