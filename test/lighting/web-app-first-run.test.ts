/**
 * A first run without a terminal, in a real browser at phone and tablet size: the operator creates a site
 * in the console, the household opens its link, searches for devices (a countdown while pairing is open,
 * the device appears live) and accepts one, makes a room and moves the light into it, saves a scene from
 * what the lights show, binds a wall button by pressing it, sets a schedule and sees it fire on a clock
 * the test drives, and finds it all in the history. No axe-core violation on any step.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { type TestDriverControl, testDriverType } from './test-driver.ts';

let t: TestHub;
let lighting: LightingExports;
let browser: Browser;

beforeAll(async () => {
  t = await startTestHub({
    plugins: ['console', 'lighting'],
    extraPlugins: [probePlugin((l) => (lighting = l))],
    config: { plugins: { lighting: { createHomeSite: false } } },
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** The operator's part: signs in to the console and creates a site; answers the site's link. */
async function createSiteInConsole(name: string): Promise<string> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.adminUrl}/admin/ui/`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Sites', exact: true }).click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Create' }).click();
  const link = await page.locator('#site-link a').getAttribute('href');
  await page.close();
  return link!;
}

const clean = async (page: Page, step: string) => expect(await axeViolations(page), step).toEqual([]);

for (const [size, viewport] of [
  ['phone', { width: 390, height: 844 }],
  ['tablet', { width: 1280, height: 800 }],
] as const) {
  describe(`first run on a ${size}`, () => {
    it('creates a site, accepts a discovered device, builds a room and a scene, binds a button, sets a schedule that fires', async () => {
      const siteName = `Home ${size}`;
      const link = await createSiteInConsole(siteName);
      expect(link).toMatch(/\/site\/[A-Za-z0-9_-]+$/);
      const siteid = lighting.sites.list().find((s) => s.name === siteName)!.siteid;
      // The site's radio: a driver whose pairing lets the test decide when devices join.
      const { factory, instances } = testDriverType();
      lighting.registerDriverType(`demo${size}`, factory);
      await lighting.addDriver({ id: `radio-${size}`, type: `demo${size}`, site: siteid });
      const radio = instances.get(`radio-${size}`) as TestDriverControl;
      let endPairing = () => {};
      radio.onDiscover = async () => {
        // What the Zigbee plugin does when a device joins: it is adopted, marked new.
        await lighting.createLight(
          siteid,
          { name: 'Bulb 1', type: 'dimmable', vendor: `demo${size}`, protocolid: 'bulb-1' },
          { new: true },
        );
        await lighting.createSensor(
          siteid,
          { name: 'Wall button', type: 'button', vendor: `demo${size}`, protocolid: 'button-1' },
          { new: true },
        );
        await new Promise<void>((resolve) => {
          endPairing = resolve;
        });
      };

      const page = await browser.newPage({ viewport });
      page.setDefaultTimeout(10_000);
      page.on('dialog', (d) => void d.accept());
      await page.goto(link);
      await page.locator('#live.on').waitFor();
      expect(await page.locator('#site-name').innerText()).toBe(siteName);
      await page.getByText('No lights yet').waitFor();
      await clean(page, 'empty home');

      // Pairing: a countdown while it is open; the devices show up live as they join.
      await page.getByRole('link', { name: 'Set up', exact: true }).click();
      await page.getByRole('button', { name: `Search for new Demo${size} devices` }).click();
      await page.locator('#pairing-left', { hasText: /^(60|59|58) s left$/ }).waitFor();
      const fresh = page.locator('#new-devices');
      await fresh.locator('li', { hasText: 'Bulb 1' }).waitFor();
      await fresh.locator('li', { hasText: 'Wall button' }).waitFor();
      await clean(page, 'pairing');
      endPairing();
      await page.locator('#toast', { hasText: 'Search finished' }).waitFor();
      await page.locator('#pairing-left').waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Accept Bulb 1' }).click();
      await page.getByRole('button', { name: 'Accept Wall button' }).click();
      await page.getByText('No new devices').waitFor();
      // The accepted rows are gone; focus stays in their part of the page, not back at the top.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('h-new');
      const light = (await fetchJson(`${apiOf(link)}/light`))[0];
      expect(light).toMatchObject({ name: 'Bulb 1', new: false });

      // A room, and the light moved into it.
      await page.getByLabel('New room').fill('Living room');
      await page.getByRole('button', { name: 'Make room' }).click();
      const row = page.locator(`[data-setup-light="${light._id}"]`);
      await row
        .getByLabel('Room')
        .locator('option', { hasText: 'Living room' })
        .waitFor({ state: 'attached' });
      await row.getByLabel('Room').selectOption({ label: 'Living room' });
      await page.locator('#toast', { hasText: '“Bulb 1” is now in Living room.' }).waitFor();
      // Renamed in place.
      await row.getByLabel('Name').fill('Sofa lamp');
      await row.getByLabel('Name').press('Enter');
      await expect.poll(async () => (await fetchJson(`${apiOf(link)}/light`))[0].name).toBe('Sofa lamp');

      // A scene from what the lights show now: the lamp at home first.
      await page.getByRole('link', { name: 'Home', exact: true }).click();
      const room = page.locator('section.room', { hasText: 'Living room' });
      await room.getByRole('switch', { name: 'Sofa lamp on' }).click();
      await page.locator(`[data-light="${light._id}"].lit[aria-busy="false"]`).waitFor();
      await page.getByRole('link', { name: 'Set up', exact: true }).click();
      await page.getByLabel('New scene from what the lights show now').fill('Evening');
      await page.getByRole('button', { name: 'Save what the lights show now' }).click();
      await page.locator('#toast', { hasText: 'Scene “Evening” saved.' }).waitFor();
      const scene = (await fetchJson(`${apiOf(link)}/scene`))[0];
      expect(scene).toMatchObject({ name: 'Evening', state: [{ _id: light._id, on: true, bri: 255 }] });
      await clean(page, 'set up');

      // Bind the wall button by pressing it.
      await page.getByRole('button', { name: 'Bind a button' }).click();
      await page.locator('#listening', { hasText: 'Press the button you want to use…' }).waitFor();
      radio.press('button-1', 'button1-single');
      await page.getByText('Heard: Wall button: button 1 pressed').first().waitFor();
      await page.getByLabel('What should happen').selectOption({ label: 'Scene Evening' });
      await page.getByRole('button', { name: 'Save binding' }).click();
      await page
        .locator('#bindings li', { hasText: 'Wall button: button 1 pressed → Scene Evening' })
        .waitFor();
      await clean(page, 'bound');
      // The button renamed where it is bound; the binding reads with the new name.
      const sensorName = page.locator('#sensors').getByLabel('Name');
      await sensorName.fill('Door button');
      await sensorName.press('Enter');
      await page
        .locator('#bindings li', { hasText: 'Door button: button 1 pressed → Scene Evening' })
        .waitFor();
      // The lamp off, then the button brings the scene back.
      await radio.setState('bulb-1', { on: false, bri: 0 });
      await expect.poll(async () => (await fetchJson(`${apiOf(link)}/light`))[0].on).toBe(false);
      const before = radio.commands.length;
      radio.press('button-1', 'button1-single');
      await expect.poll(() => radio.commands.length).toBe(before + 1);
      expect(radio.commands.at(-1)).toMatchObject({ protocolid: 'bulb-1', level: { on: true, bri: 255 } });

      // A schedule on a clock the test drives: the room at 50 % at 07:00.
      const clock = new ManualClock(new Date('2026-01-05T06:58:00').getTime());
      lighting.useScheduleClock(clock);
      await page.getByRole('link', { name: 'Schedules', exact: true }).click();
      await page.getByText('No schedules yet.').waitFor();
      const view = page.locator('#view-schedules');
      await view.getByLabel('Name').fill('Morning');
      await view.getByLabel('Time of day').fill('07:00');
      await view.getByLabel('What should happen').selectOption({ label: 'Room Living room' });
      await view.getByLabel('Level').fill('128');
      await view.getByRole('button', { name: 'Save schedule' }).click();
      const listed = page.locator('#schedule-list li', { hasText: 'Morning' });
      await listed.waitFor();
      expect(await listed.innerText()).toContain('07:00');
      await clean(page, 'schedules');
      const fired = radio.commands.length;
      clock.advance(3 * 60_000);
      await expect.poll(() => radio.commands.length).toBe(fired + 1);
      expect(radio.commands.at(-1)).toMatchObject({ protocolid: 'bulb-1', level: { on: true, bri: 128 } });
      await page.locator('#toast', { hasText: 'Schedule “Morning” ran.' }).waitFor();
      await listed.getByText(/last: /).waitFor();

      // History: the lamp's changes as a timeline (changes less than 2 s apart become one entry, kept
      // back until the light has been still that long).
      await expect
        .poll(async () => (await fetchJson(`${apiOf(link)}/history?light=${light._id}`)).length, {
          timeout: 10_000,
        })
        .toBeGreaterThan(0);
      await page.getByRole('link', { name: 'History', exact: true }).click();
      const chart = page.getByRole('img', { name: /Timeline of 1 lights and 1 sensors/ });
      await chart.waitFor();
      // The chart is named as soon as it is drawn; its bars may come with the next load of the history.
      await expect.poll(() => chart.locator('rect.on').count()).toBeGreaterThan(0);
      await expect.poll(() => chart.locator('rect.event').count()).toBeGreaterThan(0);
      await clean(page, 'history');
      mkdirSync('test/output', { recursive: true });
      await page.screenshot({ path: `test/output/household-app-history-${size}.png`, fullPage: true });
      await page.close();
    }, 120_000);
  });
}

const apiOf = (link: string) => link.replace('/site/', '/api/site/');
async function fetchJson(url: string) {
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
  return (await (await fetch(url)).json()) as any;
}
