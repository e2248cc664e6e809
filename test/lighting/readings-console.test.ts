/**
 * The operator console lists the sensors that need attention across sites (a low battery, a sensor silent
 * for longer than its kind allows), in a real browser; the admin route behind it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { signInToConsole } from '../helpers/console.ts';
import { startTestHub } from '../helpers/hub.ts';
import { attach, type Json, type LightingHarness, probePlugin } from './harness.ts';

let h: LightingHarness;
let browser: Browser | null = null;

beforeAll(async () => {
  let lighting: LightingExports | undefined;
  const t = await startTestHub({
    plugins: ['lighting', 'console'],
    extraPlugins: [probePlugin((l) => (lighting = l))],
  });
  h = await attach(t, lighting!);
});
afterAll(async () => {
  await browser?.close();
  await h?.t.stop();
});

describe('sensors that need attention', () => {
  it('a low battery shows in the admin list and on the console page; a healthy sensor does not', async () => {
    const weak = (
      await h.call('POST', '/sensor', { name: 'Hall motion', vendor: 'test', testid: 'm1', type: 'motion' })
    ).body;
    await h.call('POST', '/sensor', { name: 'Porch', vendor: 'test', testid: 'm2', type: 'motion' });
    h.driver.measure('m1', { battery: 4 });
    h.driver.measure('m2', { battery: 90 });
    await expect
      .poll(async () => (await h.t.admin('GET', '/admin/lighting/sensors/attention')).body as Json[])
      .toHaveLength(1);
    const [item] = (await h.t.admin('GET', '/admin/lighting/sensors/attention')).body as Json[];
    expect(item).toMatchObject({
      _id: weak._id,
      name: 'Hall motion',
      site: { name: 'Test' },
      warnings: ['low_battery'],
      readings: { battery: 4 },
    });

    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    await signInToConsole(page, h.t.adminUrl, h.t.adminKey);
    await page.getByRole('link', { name: 'Drivers and devices', exact: true }).click();
    const row = page.locator(`[data-sensor="${weak._id}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(/Hall motion\s+Test\s+test m1\s+battery low\s+battery 4 %/);
    expect(await page.getByRole('table', { name: 'Sensors that need attention' }).innerText()).not.toContain(
      'Porch',
    );
  });
});
