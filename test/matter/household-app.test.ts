/**
 * The household app's Matter pairing: the site API's `/matter` routes (site admin only, its own site's
 * bridge, the site API's error shape) and the Set up section in a real browser on a phone: open pairing,
 * the QR code and the manual code (which a controller then pairs with), the paired app listed and
 * removable, axe clean; a site without a bridge shows no section.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { TestController } from '../helpers/matter-controller.ts';
import { request } from '../lighting/harness.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

let h: MatterHarness & { sitekey: string };
let cabinApi = '';
let cabinKey = '';
let controller: TestController;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  h = await startMatter();
  // A second site: the bridge is for the oldest site only, so this one has none.
  const cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as { sitekey: string };
  cabinKey = cabin.sitekey;
  cabinApi = `${h.t.url}/api/site/${cabinKey}`;
  controller = await TestController.create({ label: 'Apple Home', vendorId: 0x1349 });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await controller?.close();
  await browser?.close();
  await h?.t.stop();
});

describe('site API /matter', () => {
  it('answers the bridge object for the site, without codes while pairing is closed', async () => {
    const r = await h.call('GET', '/matter');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      site: h.siteid,
      commissioned: false,
      manualPairingCode: null,
      qrPayload: null,
      qrSvg: null,
      windowOpenUntil: null,
      fabrics: [],
    });
  });

  it('a site without a bridge, an unknown key and bad fabric indexes get the site API errors', async () => {
    const none = await request(`${cabinApi}/matter`, 'GET');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: 'this site has no Matter bridge' });
    expect((await request(`${cabinApi}/matter/window`, 'POST')).status).toBe(404);
    expect((await request(`${h.t.url}/api/site/not-a-key/matter`, 'GET')).status).toBe(404);
    const bad = await h.call('DELETE', '/matter/fabrics/x');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'fabricIndex must be an integer from 1 to 254' });
    expect((await h.call('DELETE', '/matter/fabrics/9')).status).toBe(404);
    // Nothing changed for the bridge.
    expect((await h.bridge()).windowOpenUntil).toBeNull();
  });
});

describe('Set up: pairing with Apple Home, Google Home, Alexa (browser)', () => {
  it('a site without a bridge shows no Matter section', async () => {
    const p = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await p.goto(`${h.t.url}/site/${cabinKey}#setup`);
    await p.getByRole('heading', { name: 'Rooms' }).waitFor();
    await expect.poll(() => p.locator('[aria-labelledby="h-matter"]').isHidden()).toBe(true);
    await p.close();
  });

  it('opens pairing, shows the QR code and the manual code a controller pairs with, then lists it', async () => {
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${h.t.url}/site/${h.sitekey}#setup`);
    await page.getByRole('heading', { name: 'Apple Home, Google Home, Alexa (Matter)' }).waitFor();
    await page.getByText('No app has added this home yet.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Open pairing' }).click();
    const code = page.locator('#matter-code');
    await code.waitFor();
    const bridge = await h.bridge();
    const manual = bridge.manualPairingCode as string;
    expect(await code.getAttribute('data-code')).toBe(manual);
    expect(await code.textContent()).toBe(`${manual.slice(0, 4)}-${manual.slice(4, 7)}-${manual.slice(7)}`);
    const qr = page.getByRole('img', { name: 'Matter pairing QR code of this home' });
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);

    await controller.commission(bridge.port, (await code.getAttribute('data-code')) as string);
    const row = page.locator('#matter-fabrics [data-fabric]');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('Apple Home');
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it('removes the paired app', async () => {
    page.on('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete Apple Home' }).click();
    await until(async () => (await h.bridge()).fabrics.length === 0, 'the fabric removed', 20_000);
    await page.getByText('No app has added this home yet.').waitFor();
    // matter.js resets the node once its last fabric is gone; the bridge says so when that is done.
    await expect.poll(async () => ((await h.call('GET', '/matter')).body as Json).commissioned).toBe(false);
  });
});
