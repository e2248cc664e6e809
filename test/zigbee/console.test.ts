/**
 * The Zigbee page of the operator console in a real browser: the stick's status, permit-join with its
 * countdown, and a simulated device joining meanwhile; the network key never reaches the page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

let t: TestHub;
let browser: Browser;
let sim: ZnpSimulator;

beforeAll(async () => {
  sim = await startZnpSimulator({ blank: true });
  t = await startTestHub({
    plugins: ['console', 'lighting', 'zigbee'],
    config: { plugins: { lighting: { createHomeSite: true }, zigbee: { path: sim.path } } },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await sim?.stop();
});

it('opens joining from the console with a countdown, and a device joins meanwhile', async () => {
  const page = await (await browser.newContext()).newPage();
  const bodies: string[] = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  // Straight to the page: a click while the status page is still loading would race its rendering.
  await page.goto(`${t.adminUrl}/admin/ui/#zigbee`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Zigbee' }).waitFor();
  await page.locator('#zigbee-status', { hasText: 'connected: true' }).waitFor();
  await page.getByLabel('Open joining for (seconds)').fill('30');
  await page.getByRole('button', { name: 'Permit join' }).click();
  await page.locator('#zigbee-countdown', { hasText: /Joining is open: (30|29|28) s left/ }).waitFor();
  await page
    .locator('#zigbee-countdown', { hasText: /Joining is open: 2[0-7] s left/ })
    .waitFor({ timeout: 15_000 });
  expect(sim.coordinator.join('plug')).toBe(true);
  await page.getByRole('button', { name: 'Close joining' }).click();
  await page.locator('#zigbee-countdown', { hasText: 'Joining is closed.' }).waitFor();
  const key = sim.coordinator.nv.get(0x62)?.toString('hex') ?? 'missing';
  expect(bodies.join('\n')).not.toContain(key);
}, 60_000);
