/** Driver instances from `plugins.lighting.drivers`: the built-in virtual driver end to end, and fault isolation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin, request } from './harness.ts';

let t: TestHub;
let lighting: LightingExports;
let api: string;

beforeAll(async () => {
  t = await startTestHub({
    plugins: ['lighting'],
    extraPlugins: [probePlugin((l) => (lighting = l))],
    config: {
      plugins: {
        lighting: {
          drivers: [
            {
              id: 'demo',
              type: 'virtual',
              site: 'Home',
              options: { devices: [{ protocolid: 'v1', kind: 'dimmable' }] },
            },
            { id: 'broken', type: 'no-such-type', site: 'Home' },
          ],
        },
      },
    },
  });
  const key = t.printed.find((l) => l.includes('/site/'))!.split('/site/')[1]!;
  api = `${t.url}/api/site/${key}`;
});
afterAll(() => t.stop());

describe('drivers from config', () => {
  it('starts the virtual driver on the first-run site named in config and drives its lights', async () => {
    expect(lighting.sites.list()[0]?.name).toBe('Home');
    const conns = (await request(`${api}/connection`, 'GET')).body;
    expect(conns).toEqual([
      expect.objectContaining({ _id: 'demo', vendor: 'virtual', connected: true, devices: 1 }),
    ]);
    const lamp = (
      await request(`${api}/light`, 'POST', {
        name: 'Demo',
        type: 'dimmable',
        vendor: 'virtual',
        virtualid: 'v1',
      })
    ).body;
    expect((await request(`${api}/light/state`, 'PUT', { _id: lamp._id, on: true, bri: 200 })).status).toBe(
      200,
    );
    await expect
      .poll(async () => (await request(`${api}/light`, 'GET')).body[0])
      .toMatchObject({ on: true, bri: 200 });
  });

  it('pairs through POST /connection/discover', async () => {
    const res = await request(`${api}/connection/discover`, 'POST', { _id: 'demo', duration: 1 });
    expect(res.body).toMatchObject({
      _id: 'demo',
      vendor: 'virtual',
      devices: [{ protocolid: 'v1', kind: 'dimmable' }],
    });
    expect((await request(`${api}/connection/discover`, 'POST', { _id: 'nope' })).status).toBe(404);
    expect((await request(`${api}/connection/discover`, 'POST', { _id: 'demo', duration: 0 })).status).toBe(
      400,
    );
  });

  it('exposes commands, subscribers and driver state as metrics', async () => {
    const auth = `Basic ${Buffer.from(`metrics:${t.adminKey}`).toString('base64')}`;
    const text = await (await fetch(`${t.adminUrl}/metrics`, { headers: { authorization: auth } })).text();
    expect(text).toMatch(/hearth_lighting_commands_total\S* [1-9]/);
    expect(text).toContain('hearth_lighting_driver_connected{driver="demo",vendor="virtual"} 1');
    expect(text).toMatch(/hearth_lighting_lights 1/);
  });

  it('keeps running when one configured driver cannot start, and says so in the notices', async () => {
    const ready = await fetch(`${t.url}/ready`);
    const text = await ready.text();
    expect(text).toContain('broken');
    const logged = t.logs.find((l) => l.msg === 'driver failed to start');
    expect(logged).toMatchObject({ driver: 'broken' });
  });
});
