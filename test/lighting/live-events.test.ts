/** The site WebSocket through a real `ws` client: pushes, commands, site isolation, refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
let other: LightingHarness;
let desk: Json;
let scene: Json;
let button: Json;
let group: Json;

beforeAll(async () => {
  h = await startLighting();
  other = await attachSecondSite(h);
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  scene = (await h.call('POST', '/scene', { name: 'Bright', state: [{ _id: desk._id, on: true, bri: 255 }] }))
    .body;
  group = (await h.call('POST', '/light/group', { name: 'Office', lights: [desk._id] })).body;
  button = (await h.call('POST', '/sensor', { name: 'Wall', vendor: 'test', testid: 'b1', type: 'button' }))
    .body;
  await h.call('POST', '/sensor/action', {
    _id: button._id,
    event: '1',
    action: { type: 'scene', _id: scene._id },
  });
});
afterAll(() => h.t.stop());

/** A second site on the same hub with its own test driver instance. */
async function attachSecondSite(first: LightingHarness): Promise<LightingHarness> {
  const created = await first.t.admin('POST', '/admin/sites', { name: 'Cabin' });
  const { siteid, sitekey } = created.body as { siteid: string; sitekey: string };
  await first.lighting.addDriver({ id: 'td2', type: 'test', site: siteid });
  return { ...first, siteid, sitekey, api: `${first.t.url}/api/site/${sitekey}` };
}

describe('site WebSocket', () => {
  it('greets with a snapshot and pushes confirmed light changes made over REST', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    const hello = await ws.next('hello');
    expect(hello.data).toMatchObject({ siteid: h.siteid, name: 'Test', lights: [{ _id: desk._id }] });
    expect(hello.data.connections).toEqual([
      expect.objectContaining({ _id: 'td', vendor: 'test', connected: true }),
    ]);
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 42 });
    const pushed = await ws.next('setLightState', (d) => d.bri === 42);
    expect(pushed.data).toMatchObject({ _id: desk._id, on: true, bri: 42, siteid: h.siteid });
    await ws.close();
  });

  it('takes set, apply/scene and group/toggle commands and acknowledges them by id', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    ws.send('set', { _id: desk._id, on: true, bri: 99 }, 1);
    expect((await ws.next('ack', (d) => d._id === desk._id && d.bri === 99)).id).toBe(1);
    await ws.next('setLightState', (d) => d.bri === 99);
    ws.send('apply/scene', { _id: scene._id }, 2);
    await ws.next('sceneApplied', (d) => d._id === scene._id);
    await ws.next('setLightState', (d) => d.bri === 255);
    ws.send('group/toggle', { _id: group._id }, 3);
    await ws.next('setLightState', (d) => d.on === false);
    ws.send('set', { _id: desk._id, on: true, bri: 999 }, 4);
    expect((await ws.next('error')).data.message).toMatch(/bri must be an integer/);
    ws.ws.send('not json');
    expect((await ws.next('error', (d) => /JSON object/.test(d.message))).data).toBeTruthy();
    ws.send('dance', {}, 5);
    expect((await ws.next('error', (d) => /unknown command/.test(d.message))).id).toBe(5);
    await ws.close();
  });

  it('answers commands named after Object.prototype members, and bad command data, with an error {message} naming it', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    const serverErrors = () => h.t.logs.filter((l) => (l.level as number) >= 50).length;
    const errorsBefore = serverErrors();
    const commandsBefore = h.driver.commands.length;
    const bad: Array<[string, unknown, RegExp]> = [
      ['constructor', {}, /^unknown command constructor$/],
      ['__proto__', {}, /^unknown command __proto__$/],
      ['toString', {}, /^unknown command toString$/],
      ['hasOwnProperty', {}, /^unknown command hasOwnProperty$/],
      ['set', [], /data must be a JSON object/],
      ['set', { _id: 5, on: true, bri: 1 }, /_id must be a string/],
      ['set', { _id: desk._id, on: 'yes', bri: 1 }, /on must be true or false/],
      ['set', { _id: 'ghost', on: true, bri: 1 }, /no light with _id ghost/],
      ['apply/scene', { _id: 'ghost' }, /no scene with _id ghost/],
      ['group/toggle', {}, /_id is required/],
    ];
    for (const [i, [command, data]] of bad.entries()) ws.send(command, data, i);
    // Oversized text and binary frames are refused by size and kind (README: JSON text up to 16 KiB).
    ws.ws.send(JSON.stringify({ command: 'ping', data: { pad: 'x'.repeat(17 * 1024) } }));
    ws.ws.send(Buffer.from('{"command":"ping"}'), { binary: true });
    await expect.poll(() => ws.messages.filter((m) => m.command === 'error').length).toBe(bad.length + 2);
    const framing = ws.messages.filter((m) => m.command === 'error' && m.id === undefined);
    expect(framing.map((m) => m.data.message)).toEqual([
      'messages must be JSON text up to 16 KiB',
      'messages must be JSON text up to 16 KiB',
    ]);
    const replies = ws.messages.filter((m) => m.command === 'error');
    for (const [i, [command, , message]] of bad.entries()) {
      const reply = replies.find((m) => m.id === i);
      expect(reply?.data.message, command).toMatch(message);
    }
    expect(serverErrors()).toBe(errorsBefore);
    expect(h.driver.commands.length).toBe(commandsBefore);
    await ws.close();
  });

  it('pushes sensor events, the actions they trigger and driver connection changes', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 10 });
    await ws.next('setLightState', (d) => d.bri === 10);
    h.driver.press('b1', '1');
    expect((await ws.next('eventSourceKey')).data).toMatchObject({
      _id: button._id,
      name: 'Wall',
      event: '1',
    });
    await ws.next('sceneApplied');
    await ws.next('setLightState', (d) => d.bri === 255);
    h.driver.setConnected(false);
    expect((await ws.next('connection')).data).toMatchObject({ _id: 'td', connected: false });
    h.driver.setConnected(true);
    await ws.next('connection', (d) => d.connected === true);
    await ws.close();
  });

  it('runs actions for events posted through the postSensorEvent export (the MQTT path)', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    await h.lighting.postSensorEvent(h.siteid, button._id, '1');
    expect((await ws.next('eventSourceKey')).data).toMatchObject({ _id: button._id, event: '1' });
    await ws.next('sceneApplied', (d) => d._id === scene._id);
    await expect(h.lighting.postSensorEvent(other.siteid, button._id, '1')).rejects.toThrow(/no sensor/);
    await ws.close();
  });

  it('never shows one site’s events to another site’s subscribers', async () => {
    const mine = await SiteSocket.open(`${h.api}/ws`);
    const theirs = await SiteSocket.open(`${other.api}/ws`);
    await theirs.next('hello');
    await mine.next('hello');
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 7 });
    await mine.next('setLightState', (d) => d.bri === 7);
    // A button press on this site runs its scene: the event, the scene and the light all stay here.
    h.driver.press('b1', '1');
    await mine.next('eventSourceKey', (d) => d._id === button._id);
    await mine.next('sceneApplied', (d) => d._id === scene._id);
    await mine.next('setLightState', (d) => d.bri === 255);
    h.lighting.broadcast(other.siteid, { command: 'announce', data: { text: 'cabin only' } });
    await theirs.next('announce');
    expect(theirs.messages.map((m) => m.command)).toEqual(['hello', 'announce']);
    expect(mine.messages.some((m) => m.command === 'announce')).toBe(false);
    // A command naming another site's light is refused as unknown.
    theirs.send('set', { _id: desk._id, on: true, bri: 1 });
    expect((await theirs.next('error')).data.message).toMatch(/no light/);
    await Promise.all([mine.close(), theirs.close()]);
  });

  it('pushes siteChanged after configuration changes, also on the /site/<key>/ws alias', async () => {
    const ws = await SiteSocket.open(`${h.t.url}/site/${h.sitekey}/ws`);
    await ws.next('hello');
    const added = (
      await h.call('POST', '/light', { name: 'Porch', type: 'binary', vendor: 'test', testid: 'p9' })
    ).body;
    const changed = await ws.next('siteChanged', (d) =>
      d.lights.some((l: { _id: string }) => l._id === added._id),
    );
    expect(changed.data).toMatchObject({ siteid: h.siteid, name: 'Test' });
    await h.call('DELETE', `/light/${added._id}`);
    await ws.next('siteChanged', (d) => !d.lights.some((l: { _id: string }) => l._id === added._id));
    await ws.close();
  });

  it('acknowledges the Houm.io 1.0 subscribe command with its own site, whatever key the command names', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    ws.send('subscribe', { sitekey: other.sitekey }, 's');
    const ack = await ws.next('ack');
    expect(ack).toMatchObject({ id: 's', data: { siteid: h.siteid } });
    h.lighting.broadcast(other.siteid, { command: 'announce', data: { text: 'cabin only' } });
    h.lighting.broadcast(h.siteid, { command: 'announce', data: { text: 'mine' } });
    await ws.next('announce', (d) => d.text === 'mine');
    expect(ws.messages.filter((m) => m.command === 'announce').map((m) => m.data.text)).toEqual(['mine']);
    await ws.close();
  });

  it('closes the sockets of a deleted site with 4001 and refuses its key afterwards', async () => {
    const gone = (await h.t.admin('POST', '/admin/sites', { name: 'Gone' })).body as Json;
    const url = `${h.t.url}/api/site/${gone.sitekey}/ws`;
    const ws = await SiteSocket.open(url);
    await ws.next('hello');
    const closed = new Promise<number>((r) => ws.ws.once('close', (code) => r(code)));
    expect((await h.t.admin('DELETE', `/admin/sites/${gone.siteid}`)).status).toBe(204);
    expect(await closed).toBe(4001);
    await expect(SiteSocket.open(url)).rejects.toThrow('HTTP 404');
  });

  it('refuses unknown keys at the upgrade with 404', async () => {
    await expect(SiteSocket.open(`${h.t.url}/api/site/not-a-key/ws`)).rejects.toThrow('HTTP 404');
    // The site id is not a key: without a token verifier it is refused the same way.
    await expect(SiteSocket.open(`${h.t.url}/api/site/${h.siteid}/ws`)).rejects.toThrow('HTTP 404');
  });

  it('closes the sockets of a site whose key is rotated', async () => {
    const ws = await SiteSocket.open(`${other.api}/ws`);
    await ws.next('hello');
    const closed = new Promise<number>((r) => ws.ws.once('close', (code) => r(code)));
    const rotated = await h.t.admin('POST', `/admin/sites/${other.siteid}/rotate-key`);
    expect(rotated.status).toBe(200);
    expect(await closed).toBe(4001);
    await expect(SiteSocket.open(`${other.api}/ws`)).rejects.toThrow('HTTP 404');
  });

  it('drops a subscriber that stops reading instead of buffering without bound; others keep receiving', async () => {
    const slow = await SiteSocket.open(`${h.api}/ws`);
    const fast = await SiteSocket.open(`${h.api}/ws`);
    await slow.next('hello');
    await fast.next('hello');
    const rawSocket = (slow.ws as unknown as { _socket: import('node:net').Socket })._socket;
    rawSocket.pause(); // the client stops reading: the server's send buffer fills up
    const closed = new Promise<void>((r) => slow.ws.once('close', () => r()));
    const big = { command: 'announce', data: { text: 'x'.repeat(64 * 1024) } };
    let delivered = 2;
    for (let i = 0; i < 400 && delivered === 2; i++) {
      delivered = h.lighting.broadcast(h.siteid, big);
      await new Promise((r) => setImmediate(r));
    }
    expect(delivered).toBe(1); // the slow one was dropped by the bounded send
    rawSocket.resume();
    await closed;
    h.lighting.broadcast(h.siteid, { command: 'announce', data: { text: 'still here' } });
    await fast.next('announce', (d) => d.text === 'still here');
    await fast.close();
  });
});
