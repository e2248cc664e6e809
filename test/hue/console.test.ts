/**
 * The Hue bridges page of the operator console in a real browser: pairing asks the operator to press the
 * link button, waits for it, and lists the paired bridge; the application key never reaches the page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { SimulatedBridge } from './helpers.ts';

let t: TestHub;
let browser: Browser;
let bridge: SimulatedBridge;

beforeAll(async () => {
  bridge = await SimulatedBridge.start({ coalesceMs: 50 });
  t = await startTestHub({
    plugins: ['console', 'lighting', 'hue'],
    config: { plugins: { hue: { pairingTimeoutMs: 10000 } } },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await bridge?.stop();
});

it('pairs a bridge from the console: the link button prompt, then the bridge in the list', async () => {
  const page = await (await browser.newContext()).newPage();
  const bodies: string[] = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  await page.goto(`${t.adminUrl}/admin/ui/`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Hue bridges' }).click();
  await page.getByLabel('Bridge address').fill(bridge.host);
  await page.getByLabel('Port').fill(String(bridge.port));
  await page.getByRole('button', { name: 'Pair' }).click();
  // The prompt counts down to the pairing's deadline.
  await page.locator('#hue-status', { hasText: /Press the link button.*\(\d+ s left\)/ }).waitFor();
  bridge.pressLinkButton();
  await page.locator('#hue-status', { hasText: `Paired bridge ${bridge.bridgeId}` }).waitFor();
  await page.locator(`tr[data-bridge="${bridge.bridgeId}"]`).waitFor();
  const appKey = bridge.keys().at(-1) as string;
  expect(appKey).toBeTruthy();
  expect(bodies.join('\n')).not.toContain(appKey);
  expect(await page.content()).not.toContain(appKey);
}, 60_000);
