/**
 * The setup steps against the real things they drive, in chromium: a Hue bridge (simulated at the wire,
 * answering mDNS on loopback where the hue plugin's discovery setting asks) found and paired from "Find
 * devices"; the assistants step shown only when `GET /admin/matter` answers, opening a pairing window and
 * showing its code; a device that announced itself over MQTT (Home Assistant discovery, published with
 * mqtt.js to the hub's broker) listed as new; a step whose plugin is not running says so.
 */
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { definePlugin } from '../../core/plugin/types.ts';
import { BridgeMdnsResponder } from '../../scripts/simulators/hue-bridge/mdns.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { freeUdpPort, SimulatedBridge } from '../hue/helpers.ts';

/** The Matter plugin's admin surface as the console sees it: a status and a pairing window per site. */
const windows: string[] = [];
const matterFixture = definePlugin({
  name: 'matter-fixture',
  version: '1.0.0',
  description: 'test plugin: GET /admin/matter and POST /admin/matter/:site/window',
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    const r = ctx.http.router('admin');
    r.get('/admin/matter', (k) => {
      k.body = { running: true, sites: [] };
    });
    r.post('/admin/matter/:site/window', (k) => {
      windows.push(k.params.site ?? '');
      k.body = { manualPairingCode: '3497-011-2332', qrPayload: 'MT:Y.K9042C00KA0648G00', seconds: 900 };
    });
    return { stop() {} };
  },
});

let t: TestHub;
let browser: Browser;
let bridge: SimulatedBridge;
let responder: BridgeMdnsResponder;

beforeAll(async () => {
  bridge = await SimulatedBridge.start({ coalesceMs: 50, bridgeId: '001788fffe0a0b0c' });
  const mdnsPort = await freeUdpPort();
  responder = await BridgeMdnsResponder.start(bridge, {
    mdns: { port: mdnsPort, interface: '127.0.0.1', multicast: false },
  });
  t = await startTestHub({
    plugins: ['console', 'lighting', 'hue', 'mqtt-devices', 'auth'],
    extraPlugins: [matterFixture],
    adminKey: null,
    config: {
      mqtt: { allowAnonymous: true },
      plugins: { hue: { pairingTimeoutMs: 10000, discovery: { address: '127.0.0.1', port: mdnsPort } } },
    },
  });
  browser = await launchBrowser();
  // A lamp announces itself (Home Assistant MQTT discovery, retained) before anyone opens the console.
  const lamp = await mqtt.connectAsync(t.mqttUrl);
  await lamp.publishAsync(
    'homeassistant/light/desk/config',
    JSON.stringify({
      schema: 'json',
      unique_id: 'desk',
      name: 'Desk lamp',
      cmd_t: 'desk/set',
      stat_t: 'desk/state',
    }),
    { retain: true, qos: 1 },
  );
  await lamp.endAsync();
  for (let i = 0; i < 100; i++) {
    if (((await t.admin('GET', '/admin/mqtt/devices')).body as unknown[]).length > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await responder?.stop();
  await bridge?.stop();
});

it('lists an announced MQTT device, finds and pairs a Hue bridge, and opens a Matter pairing window, from the setup steps', async () => {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${t.adminUrl}/`);
  await page.getByLabel('Choose the owner password').fill('correct horse battery');
  await page.getByLabel('The same password again').fill('correct horse battery');
  await page.getByRole('button', { name: 'Set up this hub' }).click();
  await page.getByRole('heading', { name: /Find devices/ }).waitFor();

  await page.getByText('1 new device announced: Desk lamp.').waitFor();
  await page.getByRole('button', { name: 'Look again for MQTT devices' }).click();
  await page.getByText('1 new device announced: Desk lamp.').waitFor();
  // A plugin that is not running is named, not a raw error.
  await page.getByText('Zigbee sticks: its plugin is not running on this hub.').waitFor();

  await page.getByRole('button', { name: 'Find Hue bridges' }).click();
  const pair = page.getByRole('button', { name: 'Pair Hue Bridge - 0A0B0C' });
  await pair.waitFor();
  expect(responder.answered).toBeGreaterThanOrEqual(1);
  bridge.pressLinkButton();
  await pair.click();
  await page.locator('#say', { hasText: 'Hue Bridge - 0A0B0C is paired' }).waitFor();
  await page.getByRole('heading', { name: 'Find devices (done)' }).waitFor();
  const bridges = (await t.admin('GET', '/admin/hue/bridges')).body as Array<{ bridgeId: string }>;
  expect(bridges.map((b) => b.bridgeId)).toEqual([bridge.bridgeId]);
  expect(bridge.keys()).toHaveLength(1);

  // One invitation per person the auth server knows: the same household link, by e-mail.
  const created = await t.admin('POST', '/admin/users', {
    email: 'mia@example.org',
    name: 'Mia',
    password: 'a long enough password',
    role: 'user',
  });
  expect(created.status).toBe(201);
  await page.getByRole('button', { name: 'Show the household link as a QR code' }).click();
  await page.getByRole('img', { name: /QR code of the household link/ }).waitFor();
  const link = await page.locator('.secret').innerText();
  const mail = await page.getByRole('link', { name: 'Email the link to Mia' }).getAttribute('href');
  expect(mail).toMatch(/^mailto:mia%40example\.org\?subject=/);
  expect(decodeURIComponent(mail?.split('body=')[1] ?? '')).toBe(link);

  await page.getByRole('button', { name: 'Open a Matter pairing window' }).click();
  await page.getByRole('img', { name: 'Matter pairing QR code' }).waitFor();
  await page.getByText('Or type the code 3497-011-2332').waitFor();
  const [site] = (await t.admin('GET', '/admin/sites')).body as Array<{ siteid: string }>;
  expect(windows).toEqual([site?.siteid]);
  await page.getByRole('heading', { name: 'Turn on the assistants (done)' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
}, 90_000);
