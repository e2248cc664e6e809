/**
 * The site's MQTT devices page in a real browser (Debian chromium via playwright-core): a discovered
 * zigbee2mqtt bulb shows as added (adopted as a light) and new, one click accepts it (device and light), a
 * registered device is added as a light with a click, and the lights work from the site API. Unknown keys
 * get the lighting plugin's 404.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startZigbee2mqtt, type Zigbee2mqttSim } from '../../scripts/simulators/zigbee2mqtt.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let z2m: Zigbee2mqttSim;
let browser: Browser;

beforeAll(async () => {
  h = await startMqttHub({ mqtt: { allowAnonymous: true } });
  z2m = await startZigbee2mqtt({
    url: h.t.mqttUrl,
    devices: [
      { name: 'lamp', type: 'bulb' },
      { name: 'remote', type: 'switch' },
    ],
  });
  await eventually(
    async () => ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[]).length === 2 || undefined,
    'discovery',
  );
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await z2m?.stop();
  await h?.stop();
});

it('shows discovered devices as added and new, accepts them with a click, and adds a registered one', async () => {
  // A device the operator registered by hand is not adopted: the page offers to add it.
  expect(
    (
      await h.t.admin('POST', '/admin/mqtt/devices', {
        mqttid: 'tasmota:attic',
        site: h.siteid,
        name: 'Attic',
      })
    ).status,
  ).toBe(201);
  await eventually(
    async () => ((await h.site('GET', '/sensor')).body as Json[]).length === 1 || undefined,
    'the adopted sensor',
  );
  const page = await browser.newPage();
  const res = await page.goto(`${h.t.url}/mqtt/site/${h.sitekey}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['referrer-policy']).toBe('no-referrer');
  // Discovered devices are already lights and sensors of the site (marked new there too).
  const lamp = page.locator('li[data-mqttid="zigbee2mqtt:lamp"]');
  await lamp.locator('.badge.new').waitFor();
  await lamp.locator('.badge.added').waitFor();
  expect(await lamp.getByRole('button', { name: 'Add as light' }).count()).toBe(0);
  await lamp.getByRole('button', { name: 'Accept' }).click();
  await lamp.locator('.badge.new').waitFor({ state: 'detached' });
  const remote = page.locator('li[data-mqttid="zigbee2mqtt:remote"]');
  await remote.locator('.badge.added').waitFor();
  const attic = page.locator('li[data-mqttid="tasmota:attic"]');
  await attic.getByRole('button', { name: 'Add as light' }).click();
  await attic.locator('.badge.added').waitFor();

  const lights = (await h.site('GET', '/light')).body as Json[];
  expect(lights).toEqual([
    expect.objectContaining({ name: 'lamp', type: 'dimmable', mqttid: 'zigbee2mqtt:lamp', new: false }),
    expect.objectContaining({ name: 'Attic', type: 'dimmable', mqttid: 'tasmota:attic', new: false }),
  ]);
  const sensors = (await h.site('GET', '/sensor')).body as Json[];
  expect(sensors).toEqual([
    expect.objectContaining({
      mqttid: 'zigbee2mqtt:remote',
      events: ['on', 'off', 'brightness_move_up', 'brightness_move_down'],
      new: true,
    }),
  ]);
  expect((await h.site('PUT', '/light/state', { _id: lights[0]._id, on: true, bri: 64 })).status).toBe(200);
  await eventually(
    () => (z2m.bulb('lamp').state === 'ON' && z2m.bulb('lamp').brightness === 64) || undefined,
    'the bulb',
  );
  // A hub that cannot be reached is said in words, not with the browser's "Failed to fetch".
  await page.route('**/accept', (route) => route.abort('internetdisconnected'));
  await page.locator('li[data-mqttid="zigbee2mqtt:remote"]').getByRole('button', { name: 'Accept' }).click();
  await page.locator('#status', { hasText: 'Could not reach the hub' }).waitFor();
  expect(await page.locator('body').innerText()).not.toContain('Failed to fetch');
  await page.close();
});

it('refuses unknown keys and other sites’ devices', async () => {
  expect((await fetch(`${h.t.url}/mqtt/site/not-a-key`)).status).toBe(404);
  const other = await fetch(`${h.t.url}/api/mqtt/site/not-a-key/devices`);
  expect(other.status).toBe(404);
  expect(await other.json()).toEqual({ message: 'unknown site' });
  const cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as Json;
  const cross = await fetch(
    `${h.t.url}/api/mqtt/site/${cabin.sitekey}/devices/${encodeURIComponent('zigbee2mqtt:lamp')}/accept`,
    { method: 'POST' },
  );
  expect(cross.status).toBe(404);
  expect(await (await fetch(`${h.t.url}/api/mqtt/site/${cabin.sitekey}/devices`)).json()).toEqual([]);
  expect(JSON.stringify(h.t.logs)).not.toContain(cabin.sitekey);
});
