/**
 * The operator console's pages for running the hub, in chromium: drivers and their device registries,
 * the live log tail (secrets never in it), key metrics as charts, translation limits, usage chart and
 * custom tags. Zero axe-core violations on each page, at a tablet and a phone viewport.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { signInToConsole, VIEWPORTS } from '../helpers/console.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin } from '../lighting/harness.ts';
import { testDriverType } from '../lighting/test-driver.ts';

describe.each(VIEWPORTS)('at a %s viewport', (_name, viewport) => {
  let t: TestHub;
  let lighting: LightingExports;
  let browser: Browser;
  let page: Page;
  let sitekey: string;

  beforeAll(async () => {
    t = await startTestHub({
      plugins: ['console', 'lighting', 'translation', 'mqtt-devices'],
      extraPlugins: [probePlugin((l) => (lighting = l))],
      config: { log: { level: 'info' } },
    });
    const site = (await t.admin('POST', '/admin/sites', { name: 'Flat' })).body as {
      siteid: string;
      sitekey: string;
    };
    sitekey = site.sitekey;
    const { factory } = testDriverType();
    lighting.registerDriverType('test', factory);
    await lighting.addDriver({
      id: 'radio',
      type: 'test',
      site: site.siteid,
      options: {
        devices: [
          { protocolid: 'lamp-1', kind: 'dimmable', name: 'Lamp' },
          { protocolid: 'btn-1', kind: 'sensor' },
        ],
      },
    });
    await fetch(`${t.url}/api/site/${sitekey}/light`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Reading lamp', type: 'dimmable', vendor: 'test', protocolid: 'lamp-1' }),
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport });
    page.setDefaultTimeout(10_000);
    page.on('dialog', (d) => void d.accept());
    await signInToConsole(page, t.adminUrl, t.adminKey);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  describe('console pages for running the hub', () => {
    it('lists every driver with its connection, and its device registry with what uses each device', async () => {
      await page.getByRole('link', { name: 'Drivers and devices', exact: true }).click();
      const row = page.locator('[data-driver="radio"]');
      await row.waitFor();
      expect(await row.innerText()).toMatch(/radio\s+test\s+Flat\s+connected/);
      await row.getByRole('button', { name: 'Devices of radio' }).click();
      await page.locator('[data-device="lamp-1"]', { hasText: 'Reading lamp' }).waitFor();
      expect(await page.locator('[data-device="btn-1"]').innerText()).toContain('not used');
      expect(await axeViolations(page)).toEqual([]);
      expect((await fetch(`${t.adminUrl}/admin/lighting/drivers`)).status).toBe(401);
      expect((await t.admin('GET', '/admin/lighting/drivers/nope/devices')).status).toBe(404);
    });

    it('tails the log live, without the site keys or the admin key in it', async () => {
      await page.getByRole('link', { name: 'Log', exact: true }).click();
      await page.locator('#log-lines li').first().waitFor();
      // Something happens after the page opened: it shows up without a reload.
      const { factory } = testDriverType();
      lighting.registerDriverType('late', factory);
      await lighting.addDriver({ id: 'late-radio', type: 'late', site: 'Flat' });
      await page.locator('#log-lines li', { hasText: '"driver":"late-radio"' }).waitFor();
      const text = await page.locator('#log-lines').innerText();
      expect(text).not.toContain(sitekey);
      expect(text).not.toContain(t.adminKey);
      expect(await axeViolations(page)).toEqual([]);
      expect((await t.admin('GET', '/admin/log?after=-1')).status).toBe(400);
      expect((await t.admin('GET', '/admin/log?limit=501')).status).toBe(400);
      const tail = (await t.admin('GET', '/admin/log?limit=2')).body as { next: number; lines: unknown[] };
      expect(tail.lines).toHaveLength(2);
    });

    it('draws key metrics as charts, counters as rates', async () => {
      await page.getByRole('link', { name: 'Metrics', exact: true }).click();
      await page.locator('[data-metric="process_resident_memory_bytes"] svg').waitFor();
      // The second sample, a second later, gives the first rate.
      await page.locator('[data-metric="hearth_http_request_duration_seconds_count"] svg').waitFor();
      const name = await page
        .locator('[data-metric="process_resident_memory_bytes"] svg')
        .getAttribute('aria-label');
      expect(name).toMatch(/^Memory \(resident\): now \d+/);
      expect(await axeViolations(page)).toEqual([]);
      expect((await t.admin('GET', '/admin/metrics')).body).toContain('process_resident_memory_bytes');
    });

    it('sets a developer key’s character limit and shows usage by day as a chart and by custom tag', async () => {
      await page.getByRole('link', { name: 'Translation keys', exact: true }).click();
      await page.getByLabel('Label').fill('Announcer');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.locator('#new-key', { hasText: 'Created Announcer' }).waitFor();
      await page.getByLabel('Character limit of Announcer (empty: no limit)').fill('5000');
      await page.getByRole('button', { name: 'Set the limit of Announcer' }).click();
      await page.locator('tr', { hasText: 'Announcer' }).getByText('5000', { exact: true }).waitFor();
      await page.getByRole('img', { name: /^Characters per day by key: 0 in \d+ days/ }).waitFor();
      await page.getByText('No tagged translations in this time.').waitFor();
      expect(await axeViolations(page)).toEqual([]);
    });

    it('shows the MQTT device registry: moves a device to another site, deletes it; lists retained messages', async () => {
      const cellar = (await t.admin('POST', '/admin/sites', { name: 'Cellar' })).body as { siteid: string };
      const flat = lighting.sites.list().find((s) => s.name === 'Flat')!;
      expect(
        (await t.admin('POST', '/admin/mqtt/devices', { mqttid: 'tasmota:kitchen', site: flat.siteid }))
          .status,
      ).toBe(201);
      await page.getByRole('link', { name: 'MQTT devices', exact: true }).click();
      const row = page.locator('[data-mqtt-device="tasmota:kitchen"]');
      await row.waitFor();
      await row.getByLabel('Site of tasmota:kitchen').selectOption({ label: 'Cellar' });
      await page.locator('#say', { hasText: 'moved to Cellar' }).waitFor();
      const devices = (await t.admin('GET', '/admin/mqtt/devices')).body as Array<{
        protocolid: string;
        site: string;
      }>;
      expect(devices.find((d) => d.protocolid === 'tasmota:kitchen')?.site).toBe(cellar.siteid);
      await page.getByRole('table', { name: /Retained messages/ }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await row.getByRole('button', { name: 'Delete tasmota:kitchen' }).click();
      await page.getByText('No MQTT devices yet.').waitFor();
    });

    it('opens a page whose link was used while the first page was still loading (regression)', async () => {
      const other = await browser.newPage({ viewport });
      other.setDefaultTimeout(10_000);
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      // The Status page's data is slow to come.
      await other.route('**/admin/ui/api/hub', async (route) => {
        await held;
        await route.continue();
      });
      await other.goto(`${t.adminUrl}/admin/ui/`);
      await other.getByLabel('Admin key').fill(t.adminKey);
      await other.getByRole('button', { name: 'Sign in' }).click();
      await other.getByRole('link', { name: 'Sites', exact: true }).click();
      await other.getByLabel('Name', { exact: true }).waitFor();
      release();
      // The Status page's late answer does not land on the Sites page.
      await new Promise((r) => setTimeout(r, 300));
      expect(await other.locator('#page-body').innerText()).not.toContain('Plugins');
      expect(await other.locator('#page-title').innerText()).toBe('Sites');
      await other.close();
    });

    it('has no axe-core violations on these pages', async () => {
      for (const name of ['Drivers and devices', 'MQTT devices', 'Log', 'Metrics', 'Translation keys']) {
        await page.getByRole('link', { name }).click();
        await page.locator('#page-body h2, #page-body caption, #page-body p').first().waitFor();
        expect(await axeViolations(page), name).toEqual([]);
      }
    });

    it('rotates the admin key from the Status page: the new key is shown once and the old one stops', async () => {
      await page.getByRole('link', { name: 'Status', exact: true }).click();
      await page.getByRole('button', { name: 'Rotate the admin key' }).click();
      const key = await page.locator('#new-admin-key .secret').innerText();
      expect(key).not.toBe(t.adminKey);
      const asKey = (k: string) =>
        fetch(`${t.adminUrl}/admin/sites`, { headers: { authorization: `Bearer ${k}` } }).then(
          (r) => r.status,
        );
      expect(await asKey(t.adminKey)).toBe(401);
      expect(await asKey(key)).toBe(200);
      expect(await axeViolations(page)).toEqual([]);
    });
  });
});
