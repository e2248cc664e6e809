/** Desired vs reported state, reconciliation, coalescing and driver failures (docs/lighting.md#desired-and-reported-state). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
let lamp: Json;
const level = async (id: string) => {
  const l = (await h.call('GET', '/light')).body.find((x: Json) => x._id === id);
  return { on: l.on, bri: l.bri };
};

beforeAll(async () => {
  // A short reconciliation window keeps the silent-device tests quick.
  h = await startLighting({ config: { plugins: { lighting: { reconcileMs: 100 } } } });
  lamp = (await h.call('POST', '/light', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'L' }))
    .body;
});
afterAll(() => h.t.stop());

describe('reported state', () => {
  // The window itself (nothing confirmed a millisecond before it ends) is checked on a fake clock in
  // reconcile.test.ts; here the same path runs through the real hub and socket.
  it('answers a command to a silent device unconfirmed, then pushes the level read back from it', async () => {
    h.driver.behaviour = 'silent';
    h.driver.readable = true;
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    const res = await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 30 });
    expect(res.body).toMatchObject({ on: true, bri: 30, confirmed: false });
    // Reconciliation reads the device back (readState) and only then pushes.
    const pushed = await ws.next('setLightState');
    expect(pushed.data).toMatchObject({ on: true, bri: 30 });
    expect(await level(lamp._id)).toEqual({ on: true, bri: 30 });
    await ws.close();
  });

  it('assumes the commanded level for a device that can neither report nor be read', async () => {
    h.driver.behaviour = 'silent';
    h.driver.readable = false;
    await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 31 });
    await expect.poll(() => level(lamp._id)).toEqual({ on: true, bri: 31 });
  });

  it('keeps a prompt report that differs from the command (no stale reconciliation overwrites it)', async () => {
    h.driver.behaviour = 'report';
    h.driver.readable = false; // reconciliation could only assume the commanded level
    h.driver.deviceLevel = (l) => ({ on: l.on, bri: l.bri - 2 }); // the bulb rounds to its own steps
    await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 40 });
    await expect.poll(() => level(lamp._id)).toEqual({ on: true, bri: 38 });
    // A silent light commanded after it is reconciled after the same window, armed later: once its assumed
    // level shows, any reconciliation still armed for the lamp would have run.
    const later = (
      await h.call('POST', '/light', { name: 'Later', type: 'dimmable', vendor: 'test', testid: 'L2' })
    ).body;
    h.driver.behaviour = 'silent';
    await h.call('PUT', '/light/state', { _id: later._id, on: true, bri: 12 });
    await expect.poll(() => level(later._id)).toEqual({ on: true, bri: 12 });
    expect(await level(lamp._id)).toEqual({ on: true, bri: 38 });
    h.driver.behaviour = 'report';
    expect((await h.call('DELETE', `/light/${later._id}`)).status).toBe(204);
    h.driver.deviceLevel = (l) => l;
    h.driver.readable = true;
  });

  it('follows what the device reports even when it differs from the command', async () => {
    h.driver.behaviour = 'report';
    await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 50 });
    await expect.poll(() => level(lamp._id)).toEqual({ on: true, bri: 50 });
    h.driver.external('L', { on: true, bri: 180 });
    expect(await level(lamp._id)).toEqual({ on: true, bri: 180 });
  });
});

describe('resync', () => {
  it('reads every light back when the driver reconnects, and pushes what changed meanwhile', async () => {
    h.driver.behaviour = 'report';
    h.driver.readable = true;
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    h.driver.setConnected(false);
    h.driver.unseenChange('L', { on: true, bri: 66 });
    expect(await level(lamp._id)).not.toEqual({ on: true, bri: 66 });
    h.driver.setConnected(true);
    await ws.next('setLightState', (d) => d._id === lamp._id && d.bri === 66);
    expect(await level(lamp._id)).toEqual({ on: true, bri: 66 });
    await ws.close();
  });

  it('does not read every light again when the link stays up and only its detail changes', async () => {
    // An MQTT driver reports a new detail (device counts) whenever one device comes or goes; a full read
    // of every light each time would send a query to every device of the site.
    h.driver.readable = true;
    h.driver.setConnected(false);
    h.driver.setConnected(true);
    await expect.poll(() => h.driver.reads.length).toBeGreaterThan(0);
    const before = h.driver.reads.length;
    // A resync starts its first read synchronously inside the report: none may start here.
    h.driver.setConnected(true);
    h.driver.sink.reportConnection({ connected: true, detail: { link: 'loopback', devices: 7 } });
    expect(h.driver.reads.length).toBe(before);
  });
});

describe('health', () => {
  it('reports the plugin degraded on /ready while a driver is disconnected', async () => {
    const lightingHealth = async () => {
      const body = (await (await fetch(`${h.t.url}/ready`)).json()) as { plugins: Json[] };
      return body.plugins.find((p) => p.name === 'lighting')?.health;
    };
    expect(await lightingHealth()).toMatchObject({ status: 'ok' });
    h.driver.setConnected(false);
    expect(await lightingHealth()).toEqual({ status: 'degraded', detail: 'drivers not connected: td' });
    h.driver.setConnected(true);
    expect(await lightingHealth()).toMatchObject({ status: 'ok' });
  });
});

describe('coalescing', () => {
  it('sends only the last of the commands that arrive while the driver is busy', async () => {
    h.driver.behaviour = 'report';
    const release = h.driver.hold();
    const before = h.driver.commands.length;
    const first = h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 1 });
    await expect.poll(() => h.driver.commands.length).toBe(before + 1);
    // Over one socket, messages are handled in order: once `ping` is acknowledged every `set` is queued.
    const ws = await SiteSocket.open(`${h.api}/ws`);
    for (const bri of [2, 3, 4, 5]) ws.send('set', { _id: lamp._id, on: true, bri }, bri);
    ws.send('ping', {}, 'p');
    await ws.next('ack', () => true);
    expect(ws.messages.find((m) => m.command === 'ack')?.id).toBe('p');
    release();
    expect((await first).status).toBe(200);
    await expect.poll(() => ws.messages.filter((m) => m.command === 'ack').length).toBe(5);
    await ws.close();
    expect(h.driver.commands.slice(before).map((c) => c.level.bri)).toEqual([1, 5]);
    await expect.poll(() => level(lamp._id)).toEqual({ on: true, bri: 5 });
  });
});

describe('driver failures', () => {
  it('answers 502 when the driver cannot send, and the stored state stays', async () => {
    h.driver.behaviour = 'fail';
    const before = await level(lamp._id);
    const res = await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 77 });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ message: expect.stringMatching(/could not send/) });
    expect(res.body.message).not.toMatch(/radio timeout/);
    expect(await level(lamp._id)).toEqual(before);
    h.driver.behaviour = 'report';
    // Nothing of the refused command is kept: the desired level in the state file is the previous one.
    await h.t.hub.storeRoot().flushAll();
    const file = JSON.parse(await readFile(path.join(h.t.dataDir, 'lighting.state.json'), 'utf8'));
    expect(file.levels[lamp._id].desired).not.toEqual({ on: true, bri: 77 });
  });

  it('answers 503 for a light whose vendor has no running driver', async () => {
    const orphan = (
      await h.call('POST', '/light', { name: 'Old', type: 'binary', vendor: 'zwave', zwaveid: '7' })
    ).body;
    const res = await h.call('PUT', '/light/state', { _id: orphan._id, on: true, bri: 255 });
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/no zwave driver/);
  });
});

describe('lights found by id and by protocol id after changes', () => {
  it('follows a light whose protocol id changed, and forgets a deleted one', async () => {
    h.driver.behaviour = 'report';
    const moved = (
      await h.call('POST', '/light', { name: 'Moved', type: 'dimmable', vendor: 'test', testid: 'old-id' })
    ).body;
    h.driver.external('old-id', { on: true, bri: 10 });
    await expect.poll(() => level(moved._id)).toEqual({ on: true, bri: 10 });
    // The bulb is re-paired under another id: reports under the new id reach the light, the old id none.
    const put = await h.call('PUT', '/light', { ...moved, testid: 'new-id' });
    expect(put.status).toBe(200);
    h.driver.external('new-id', { on: true, bri: 20 });
    await expect.poll(() => level(moved._id)).toEqual({ on: true, bri: 20 });
    h.driver.external('old-id', { on: true, bri: 99 });
    h.driver.external('new-id', { on: true, bri: 21 }); // reports are in order: after this, 99 would show
    await expect.poll(() => level(moved._id)).toEqual({ on: true, bri: 21 });
    // Deleted: its id is unknown at once.
    expect((await h.call('DELETE', `/light/${moved._id}`)).status).toBe(204);
    const gone = await h.call('PUT', '/light/state', { _id: moved._id, on: true, bri: 5 });
    expect(gone.status).toBe(404);
  });
});

describe('a light bound to a device its driver already knows shows the device state at once', () => {
  it('POST /light answers and pushes the device state read through the driver, not off until its next report', async () => {
    h.driver.behaviour = 'report';
    h.driver.readable = true;
    h.driver.unseenChange('ON1', { on: true, bri: 180 });
    const ws = await SiteSocket.open(`${h.api}/ws`);
    await ws.next('hello');
    const made = await h.call('POST', '/light', {
      name: 'Bound',
      type: 'dimmable',
      vendor: 'test',
      testid: 'ON1',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ on: true, bri: 180 });
    expect(await level(made.body._id)).toEqual({ on: true, bri: 180 });
    const pushed = await ws.next('setLightState', (d) => d._id === made.body._id);
    expect(pushed.data).toMatchObject({ on: true, bri: 180 });
    await ws.close();
  });

  it('PUT /light moving a light to another device reads that device', async () => {
    h.driver.readable = true;
    h.driver.unseenChange('ON2', { on: true, bri: 90 });
    const made = await h.call('POST', '/light', {
      name: 'Mover',
      type: 'dimmable',
      vendor: 'test',
      testid: 'OFF2',
    });
    expect(made.body).toMatchObject({ on: false, bri: 0 });
    const moved = await h.call('PUT', '/light', { _id: made.body._id, testid: 'ON2' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ on: true, bri: 90 });
  });

  it('a light adopted by another plugin (createLight) shows the device state', async () => {
    h.driver.readable = true;
    h.driver.unseenChange('ON3', { on: true, bri: 60 });
    const view = await h.lighting.createLight(
      h.siteid,
      { name: 'Adopted', type: 'dimmable', vendor: 'test', protocolid: 'ON3' },
      { new: true },
    );
    expect(view).toMatchObject({ on: true, bri: 60 });
  });

  it('a device that cannot be read leaves the light off and the answer prompt', async () => {
    h.driver.readable = true;
    h.driver.hangingReads.add('HANG');
    const made = await h.call('POST', '/light', {
      name: 'Hangs',
      type: 'dimmable',
      vendor: 'test',
      testid: 'HANG',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ on: false, bri: 0 });
    h.driver.hangingReads.delete('HANG');
  });
});
