/**
 * The site WebSocket with tokens: pushes go only to tokens that may read the site, a token that can do
 * nothing on the socket is refused, and a browser passes its token as a subprotocol (it cannot set headers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Json, type LightingHarness, request, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
let lamp: Json;
const TOKENS: Record<string, string[]> = {
  reader: ['lights:read'],
  writer: ['lights:write'],
  wallswitch: ['sensors:write'],
};
const wsUrl = () => `${h.t.url.replace(/^http/, 'ws')}/api/site/${h.siteid}/ws`;

beforeAll(async () => {
  h = await startLighting();
  h.lighting.setSiteTokenVerifier(async (token) => {
    const scopes = TOKENS[token];
    return scopes ? { scopes } : null;
  });
  lamp = (await h.call('POST', '/light', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'l' }))
    .body;
});
afterAll(() => h.t.stop());

/** The HTTP status of a refused upgrade. */
function refusedWith(url: string, headers: Record<string, string>, protocols: string[] = []) {
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => reject(new Error('upgrade accepted')));
    ws.once('error', reject);
  });
}

describe('site WebSocket streams light events to tokens without lights:read (regression)', () => {
  it('refuses a token that can neither read the site nor command anything on the socket', async () => {
    expect(await refusedWith(wsUrl(), { authorization: 'Bearer wallswitch' })).toBe(403);
  });

  it('sends a lights:write token no event of any kind, while a reader gets them all', async () => {
    const reader = await SiteSocket.open(wsUrl(), { authorization: 'Bearer reader' });
    const writer = await SiteSocket.open(wsUrl(), { authorization: 'Bearer writer' });
    await reader.next('hello');

    // setLightState, from a command the writer itself may send.
    writer.send('set', { _id: lamp._id, on: true, bri: 77 }, 1);
    expect((await writer.next('ack')).data).toMatchObject({ _id: lamp._id, bri: 77 });
    await reader.next('setLightState', (d) => d.bri === 77);
    // siteChanged, sceneApplied, eventSourceKey, connection, and other plugins' broadcasts.
    const scene = (
      await h.call('POST', '/scene', { name: 'Eve', state: [{ _id: lamp._id, on: true, bri: 5 }] })
    ).body;
    await reader.next('siteChanged');
    expect((await h.call('PUT', '/scene/apply', { _id: scene._id })).status).toBe(200);
    await reader.next('sceneApplied');
    const sensor = (
      await h.call('POST', '/sensor', { name: 'S', vendor: 'test', testid: 's', type: 'button' })
    ).body;
    expect((await h.call('POST', '/sensor/event', { _id: sensor._id, event: '1' })).status).toBe(202);
    await reader.next('eventSourceKey');
    h.driver.setConnected(true);
    await reader.next('connection');
    expect(h.lighting.broadcast(h.siteid, { command: 'announce', data: { text: 'dinner' } })).toBe(1);
    await reader.next('announce');

    // Every push above was written before this reply on the same socket.
    writer.send('ping', {}, 2);
    await writer.next('ack', () => true);
    const seen = writer.messages.filter((m) => m.command !== 'ack').map((m) => m.command);
    expect(seen).toEqual([]);
    await Promise.all([reader.close(), writer.close()]);
  });
});

describe('a browser cannot use a token on the site WebSocket (regression)', () => {
  it('accepts the token as the subprotocol after "bearer", with no Authorization header, and echoes only "bearer"', async () => {
    const s = await SiteSocket.open(wsUrl(), {}, ['bearer', 'reader']);
    expect(s.ws.protocol).toBe('bearer');
    expect((await s.next('hello')).data.siteid).toBe(h.siteid);
    await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 12 });
    await s.next('setLightState', (d) => d.bri === 12);
    await s.close();
    // The token never reaches a log line.
    expect(JSON.stringify(h.t.logs)).not.toContain('reader');
  });

  it('refuses a wrong token, a missing one and a token not preceded by "bearer" like an unknown site', async () => {
    expect(await refusedWith(wsUrl(), {}, ['bearer', 'stranger'])).toBe(404);
    expect(await refusedWith(wsUrl(), {}, ['bearer'])).toBe(404);
    expect(await refusedWith(wsUrl(), {}, ['reader'])).toBe(404);
    expect(await refusedWith(wsUrl(), {}, ['bearer', 'wallswitch'])).toBe(403);
  });

  it('keeps the site key path working with no subprotocol at all', async () => {
    const s = await SiteSocket.open(`${h.api}/ws`);
    expect(s.ws.protocol).toBe('');
    await s.next('hello');
    await s.close();
    expect((await request(`${h.api}/light`, 'GET')).status).toBe(200);
  });
});
