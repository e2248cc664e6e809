/** Durable when acknowledged, and everything back after a restart, including the last known levels. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin, request } from './harness.ts';
import { testDriverType } from './test-driver.ts';

let lighting: LightingExports;
let t: TestHub;
afterAll(() => t?.stop());

const configFile = () => readFile(path.join(t.dataDir, 'lighting.config.json'), 'utf8');

describe('persistence', () => {
  it('writes configuration before answering and restores all of it after a restart', async () => {
    t = await startTestHub({ plugins: ['lighting'], extraPlugins: [probePlugin((l) => (lighting = l))] });
    type Created = { siteid: string; sitekey: string };
    const { siteid, sitekey } = (await t.admin('POST', '/admin/sites', { name: 'Durable' })).body as Created;
    lighting.registerDriverType('test', testDriverType().factory);
    await lighting.addDriver({ id: 'td', type: 'test', site: siteid });
    const api = `${t.url}/api/site/${sitekey}`;

    const lamp = (
      await request(`${api}/light`, 'POST', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'x' })
    ).body;
    // Durable the moment the API answers: the file already holds it, without any flush from the test.
    expect(await configFile()).toContain(lamp._id);
    const scene = (
      await request(`${api}/scene`, 'POST', { name: 'Low', state: [{ _id: lamp._id, on: true, bri: 3 }] })
    ).body;
    const group = (await request(`${api}/light/group`, 'POST', { name: 'All', lights: [lamp._id] })).body;
    const sensor = (
      await request(`${api}/sensor`, 'POST', { name: 'Btn', vendor: 'test', testid: 'b', type: 'button' })
    ).body;
    await request(`${api}/sensor/action`, 'POST', {
      _id: sensor._id,
      event: '1',
      action: { type: 'scene', _id: scene._id },
    });
    expect(await configFile()).toContain(`"${scene._id}"`);
    await request(`${api}/light/state`, 'PUT', { _id: lamp._id, on: true, bri: 123 });
    await expect.poll(async () => (await request(`${api}/light`, 'GET')).body[0].bri).toBe(123);
    const before = (await request(api, 'GET')).body;

    t = await t.restart();
    const again = `${t.url}/api/site/${sitekey}`;
    const after = (await request(again, 'GET')).body;
    expect(after).toEqual(before);
    expect(after.lights[0]).toMatchObject({ on: true, bri: 123 });
    expect(after.sensors[0].actions['1'][0]).toMatchObject({ type: 'scene', _id: scene._id });
    expect(after.groups[0]).toMatchObject({ _id: group._id, on: true, bri: 123 });
    // No second "Home" appears on a restart with existing sites.
    expect(lighting.sites.list().map((s) => s.name)).toEqual(['Home', 'Durable']);
  });
});

describe('the first-start Home site', () => {
  it('is created once per data dir: after every site was deleted, a restart does not bring it back', async () => {
    let mine: LightingExports | undefined;
    const first = await startTestHub({
      plugins: ['lighting'],
      extraPlugins: [probePlugin((l) => (mine = l))],
    });
    expect(first.printed.filter((l) => l.includes('/site/'))).toHaveLength(1);
    const [home] = mine!.sites.list();
    expect((await first.admin('DELETE', `/admin/sites/${home!.siteid}`)).status).toBe(204);
    const again = await first.restart();
    try {
      expect(mine!.sites.list()).toEqual([]);
      expect(again.printed.some((l) => l.includes('/site/'))).toBe(false);
    } finally {
      await again.stop();
    }
  });
});

describe('light levels', () => {
  it('are written coalesced, not per command, and still come back after a graceful restart', async () => {
    let mine: LightingExports | undefined;
    // A long coalescing window: level writes wait for it, configuration writes do not.
    const config = { store: { coalesceMs: 60_000 }, plugins: { lighting: { createHomeSite: false } } };
    let hub = await startTestHub({
      plugins: ['lighting'],
      extraPlugins: [probePlugin((l) => (mine = l))],
      config,
    });
    try {
      const { siteid, sitekey } = (await hub.admin('POST', '/admin/sites', { name: 'Flat' })).body as {
        siteid: string;
        sitekey: string;
      };
      mine!.registerDriverType('test', testDriverType().factory);
      await mine!.addDriver({ id: 'td', type: 'test', site: siteid });
      const api = () => `${hub.url}/api/site/${sitekey}`;
      const lamp = (
        await request(`${api()}/light`, 'POST', {
          name: 'Lamp',
          type: 'dimmable',
          vendor: 'test',
          testid: 'x',
        })
      ).body;
      const stateFile = path.join(hub.dataDir, 'lighting.state.json');
      const stateBefore = await readFile(stateFile, 'utf8').catch(() => '');
      for (const bri of [10, 20, 30]) {
        expect((await request(`${api()}/light/state`, 'PUT', { _id: lamp._id, on: true, bri })).status).toBe(
          200,
        );
      }
      await expect.poll(async () => (await request(`${api()}/light`, 'GET')).body[0].bri).toBe(30);
      // Three commands and three reports, and not one write of the level file yet.
      expect(await readFile(stateFile, 'utf8').catch(() => '')).toBe(stateBefore);
      hub = await hub.restart();
      expect((await request(`${api()}/light`, 'GET')).body[0]).toMatchObject({
        _id: lamp._id,
        on: true,
        bri: 30,
      });
    } finally {
      await hub.stop();
    }
  });
});
