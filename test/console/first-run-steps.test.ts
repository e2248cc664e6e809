/**
 * The setup steps against the real things they drive, in chromium: a Hue bridge (simulated at the wire,
 * answering mDNS on loopback where the hue plugin's discovery setting asks) found and paired from "Find
 * devices"; a Zigbee stick plugged in while the page is open (a by-id link to the simulated Z-Stack's PTY),
 * listed with its kind and connected from the step; the assistants step on the real Matter plugin (its
 * bridge on ::1), opening a pairing window and showing its QR code and manual code; a device that announced
 * itself over MQTT (Home Assistant discovery, published with mqtt.js to the hub's broker) listed as new.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BridgeMdnsResponder } from '../../scripts/simulators/hue-bridge/mdns.ts';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { freeUdpPort, SimulatedBridge } from '../hue/helpers.ts';

const STICK = 'usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_4c004e2b8a3bed11b8f9c2f0a3f1a6c9-if00-port0';

let t: TestHub;
let browser: Browser;
let bridge: SimulatedBridge;
let responder: BridgeMdnsResponder;
let sim: ZnpSimulator;
let byId: string;

beforeAll(async () => {
  bridge = await SimulatedBridge.start({ coalesceMs: 50, bridgeId: '001788fffe0a0b0c' });
  const mdnsPort = await freeUdpPort();
  responder = await BridgeMdnsResponder.start(bridge, {
    mdns: { port: mdnsPort, interface: '127.0.0.1', multicast: false },
  });
  sim = await startZnpSimulator({ blank: true });
  byId = mkdtempSync(join(tmpdir(), 'by-id-'));
  t = await startTestHub({
    plugins: ['console', 'lighting', 'hue', 'mqtt-devices', 'auth', 'zigbee', 'matter'],
    adminKey: null,
    config: {
      // matter.js loads in seconds; on a busy machine more than the default start bound (10 s).
      lifecycle: { pluginStartTimeoutMs: 60_000 },
      mqtt: { allowAnonymous: true },
      plugins: {
        hue: { pairingTimeoutMs: 10000, discovery: { address: '127.0.0.1', port: mdnsPort } },
        zigbee: { byIdDir: byId },
        matter: { enabled: true, port: 0, listen: '::1', mdnsInterface: 'lo' },
      },
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
  await sim?.stop();
  if (byId) rmSync(byId, { recursive: true, force: true });
});

/** Waits until `check` returns something (a bounded poll naming what never happened). */
async function until<T>(check: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('lists an announced MQTT device, finds and pairs a Hue bridge, connects a Zigbee stick plugged in meanwhile, and opens a Matter pairing window, from the setup steps', async () => {
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
  // No stick yet: the step says where it looks. Then one is plugged in (its by-id link appears).
  await page.getByText(`no serial device is under ${byId}`, { exact: false }).waitFor();
  symlinkSync(sim.path, join(byId, STICK));
  await page.getByRole('button', { name: 'Look again for Zigbee sticks' }).click();
  await page.getByText(`${STICK} (Texas Instruments Z-Stack)`).waitFor();
  await page.getByRole('button', { name: `Use the stick ${STICK}` }).click();
  await page
    .getByText(`The stick at ${join(byId, STICK)} is connected`, { exact: false })
    .waitFor({ timeout: 60_000 });
  const status = (await t.admin('GET', '/admin/zigbee/status')).body as { connected: boolean; stick: string };
  expect(status).toMatchObject({ connected: true, stick: 'znp' });
  await page.getByRole('button', { name: 'Let Zigbee devices join for 2 minutes' }).click();
  await page.locator('#say', { hasText: /Zigbee devices may join for 1[12]\d seconds/ }).waitFor();
  // Only a name the listing gave is taken.
  const outside = await t.admin('PUT', '/admin/zigbee/stick', { path: '/etc/passwd' });
  expect(outside.status).toBe(400);
  expect(outside.body).toMatchObject({ error: 'invalid_request' });

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

  // The real Matter plugin: its bridge of the home comes up in the background.
  const [site] = (await t.admin('GET', '/admin/sites')).body as Array<{ siteid: string }>;
  type View = { site: string; manualPairingCode: string | null; qrPayload: string | null };
  const bridgeView = async () =>
    ((await t.admin('GET', '/admin/matter')).body as { bridges: View[] }).bridges.find(
      (b) => b.site === site?.siteid,
    );
  await until(bridgeView, 'the Matter bridge of the home');
  await page.getByRole('button', { name: 'Open a Matter pairing window' }).click();
  await page.getByRole('img', { name: 'Matter pairing QR code' }).waitFor();
  const opened = await bridgeView();
  expect(opened?.manualPairingCode).toMatch(/^\d{11}$/);
  expect(opened?.qrPayload).toMatch(/^MT:/);
  await page.getByText(`Or type the code ${opened?.manualPairingCode}`).waitFor();
  await page.getByRole('heading', { name: 'Turn on the assistants (done)' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);

  // The Matter page shows the open window and closes it (DELETE /admin/matter/:site/window).
  await page.getByRole('link', { name: 'Matter', exact: true }).click();
  await page.getByRole('button', { name: `Close the pairing window of site ${site?.siteid}` }).click();
  await page.locator('#say', { hasText: `The pairing window of site ${site?.siteid} is closed.` }).waitFor();
  expect(await bridgeView()).toMatchObject({ manualPairingCode: null, qrPayload: null });
}, 120_000);
