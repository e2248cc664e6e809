/** Bearer tokens with the site id in the path, once a verifier is installed (the auth plugin's hook). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Json, type LightingHarness, request, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
let lamp: Json;
const TOKENS: Record<string, string[]> = {
  reader: ['lights:read'],
  writer: ['lights:read', 'lights:write'],
  admin: ['site:admin', 'lights:read'],
};
const byId = (p: string, token?: string, method = 'GET', body?: unknown) =>
  request(
    `${h.t.url}/api/site/${h.siteid}${p}`,
    method,
    body,
    token ? { authorization: `Bearer ${token}` } : {},
  );

beforeAll(async () => {
  h = await startLighting();
  lamp = (await h.call('POST', '/light', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'l' }))
    .body;
});
afterAll(() => h.t.stop());

describe('bearer tokens', () => {
  it('are refused like an unknown key while no verifier is installed', async () => {
    expect((await byId('/light', 'reader')).status).toBe(404);
  });

  it('grant exactly the scopes the verifier returns, for the site it was asked about', async () => {
    const asked: string[] = [];
    h.lighting.setSiteTokenVerifier(async (token, siteId) => {
      asked.push(siteId);
      const scopes = TOKENS[token];
      return scopes ? { scopes } : null;
    });
    expect((await byId('/light', 'reader')).status).toBe(200);
    expect(asked).toContain(h.siteid);
    expect((await byId('/light', 'stranger')).status).toBe(404);
    expect((await byId('/light')).status).toBe(404);

    const put = await byId('/light/state', 'reader', 'PUT', { _id: lamp._id, on: true, bri: 9 });
    expect(put).toMatchObject({ status: 403, body: { message: 'this token lacks the lights:write scope' } });
    expect((await byId('/light/state', 'writer', 'PUT', { _id: lamp._id, on: true, bri: 9 })).status).toBe(
      200,
    );
    expect(
      (await byId('/light', 'writer', 'POST', { name: 'n', type: 'binary', vendor: 'test', testid: 'n' }))
        .status,
    ).toBe(403);
    expect(
      (await byId('/light', 'admin', 'POST', { name: 'n', type: 'binary', vendor: 'test', testid: 'n' }))
        .status,
    ).toBe(201);
    // The site key still grants everything.
    expect((await h.call('GET', '/connection')).status).toBe(200);
  });

  it('work on the WebSocket with the same scope checks', async () => {
    const ws = await SiteSocket.open(`${h.t.url}/api/site/${h.siteid}/ws`, {
      authorization: 'Bearer reader',
    });
    await ws.next('hello');
    ws.send('set', { _id: lamp._id, on: true, bri: 1 }, 1);
    expect((await ws.next('error')).data.message).toBe('this token lacks the lights:write scope');
    await ws.close();
    await expect(
      SiteSocket.open(`${h.t.url}/api/site/${h.siteid}/ws`, { authorization: 'Bearer nope' }),
    ).rejects.toThrow('HTTP 404');
  });

  it('lose their sockets once the token stops being valid: at the next command, or by the sweep', async () => {
    let valid = true;
    let sweeps = 0;
    h.lighting.setSiteTokenVerifier(async (token) =>
      token === 'expiring'
        ? {
            scopes: ['lights:read', 'lights:write'],
            stillValid: () => {
              sweeps += 1;
              return valid;
            },
          }
        : null,
    );
    const url = `${h.t.url}/api/site/${h.siteid}/ws`;
    const closeCode = (s: SiteSocket) => new Promise<number>((r) => s.ws.once('close', (code) => r(code)));

    // Nobody asks for a revalidation: the sweep alone closes it, one second after the socket opened
    // (only the sweep's interval runs on the fake clock; sockets and HTTP stay real).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const idle = await SiteSocket.open(url, { authorization: 'Bearer expiring' });
      await idle.next('hello');
      const idleClosed = closeCode(idle);
      valid = false;
      sweeps = 0;
      vi.advanceTimersByTime(999);
      expect(sweeps).toBe(0);
      vi.advanceTimersByTime(1);
      expect(sweeps).toBe(1);
      expect(await idleClosed).toBe(4001);
    } finally {
      vi.useRealTimers();
    }

    // A command sent after the token went bad is not run, even before the sweep comes round.
    valid = true;
    const busy = await SiteSocket.open(url, { authorization: 'Bearer expiring' });
    await busy.next('hello');
    const busyClosed = closeCode(busy);
    valid = false;
    busy.send('set', { _id: lamp._id, on: true, bri: 77 }, 1);
    expect(await busyClosed).toBe(4001);
    expect(busy.messages.some((m) => m.command === 'ack')).toBe(false);
    expect((await h.call('GET', '/light')).body).not.toContainEqual(expect.objectContaining({ bri: 77 }));

    // revalidateTokenSockets() (what the auth plugin calls on a revocation) closes at once.
    valid = true;
    const third = await SiteSocket.open(url, { authorization: 'Bearer expiring' });
    await third.next('hello');
    valid = false;
    expect(h.lighting.revalidateTokenSockets()).toBe(1);
  });
});
