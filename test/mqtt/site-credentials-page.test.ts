/**
 * The household app's Set up view makes and deletes the home's MQTT device passwords itself, in a real
 * browser (chromium) on a phone: the password is shown once, works on the broker, and the view is axe clean.
 */
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  h = await startMqttHub();
  // Another site's credential is never listed here.
  const cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as { siteid: string };
  await h.credential('cabin-plug', undefined, cabin.siteid);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(`${h.t.url}/site/${h.sitekey}#setup`);
  await page.getByRole('heading', { name: 'Device passwords (MQTT)' }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

const credentials = async () => (await h.t.admin('GET', '/admin/mqtt/credentials')).body as Json[];

describe('adding a new MQTT bulb needs a device credential only the operator can make (regression)', () => {
  it('makes a password for a device in Set up, shows it once, and it logs in to the broker', async () => {
    await page.getByText('No device passwords yet.').waitFor();
    await page.getByLabel('User name for the device').fill('porch-bulb');
    await page.getByRole('button', { name: 'Make a password' }).click();
    const shown = page.locator('[data-password="porch-bulb"]');
    await shown.waitFor();
    const password = (await shown.textContent()) ?? '';
    expect(password.length).toBeGreaterThanOrEqual(24);
    await page.locator('[data-credential="porch-bulb"]').waitFor();
    await page.locator('#toast', { hasText: 'Password made for “porch-bulb”.' }).waitFor();
    expect(await page.getByLabel('User name for the device').inputValue()).toBe('');
    expect((await credentials()).find((c) => c.username === 'porch-bulb')).toEqual({
      username: 'porch-bulb',
      site: h.siteid,
      topics: null,
      created: expect.any(String),
    });
    const c = await mqtt.connectAsync(h.t.mqttUrl, { username: 'porch-bulb', password, reconnectPeriod: 0 });
    await c.endAsync(true);
    expect(await page.locator('[data-credential]').count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('says why a name is refused, and deletes a device password', async () => {
    await page.getByLabel('User name for the device').fill('porch-bulb');
    await page.getByRole('button', { name: 'Make a password' }).click();
    await page.locator('#toast', { hasText: 'Not saved: credential porch-bulb already exists' }).waitFor();
    await page.getByRole('button', { name: 'Delete porch-bulb' }).click();
    await page.locator('[data-credential="porch-bulb"]').waitFor({ state: 'detached' });
    await page.getByText('No device passwords yet.').waitFor();
    // Deleting it also takes away the password shown for it.
    expect(await page.locator('[data-password]').count()).toBe(0);
    expect((await credentials()).map((c) => c.username)).toEqual(['cabin-plug']);
    expect(await axeViolations(page)).toEqual([]);
  });
});
