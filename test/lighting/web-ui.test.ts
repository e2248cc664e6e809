/** The web UI in a real browser (Debian chromium via playwright-core), live through the WebSocket. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

const OUT = path.resolve('test/output');
let h: LightingHarness;
let browser: Browser;
let page: Page;
let desk: Json;
let hall: Json;
let scene: Json;
let group: Json;

beforeAll(async () => {
  h = await startLighting();
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  hall = (await h.call('POST', '/light', { name: 'Hall', type: 'binary', vendor: 'test', testid: 'h1' }))
    .body;
  scene = (
    await h.call('POST', '/scene', {
      name: 'Reading',
      state: [
        { _id: desk._id, on: true, bri: 180 },
        { _id: hall._id, on: true, bri: 255 },
      ],
    })
  ).body;
  group = (await h.call('POST', '/light/group', { name: 'Downstairs', lights: [desk._id, hall._id] })).body;
  const button = (
    await h.call('POST', '/sensor', { name: 'Wall switch', vendor: 'test', testid: 'b1', type: 'button' })
  ).body;
  await h.call('POST', '/sensor/event', { _id: button._id, event: '1' });
  browser = await launchBrowser();
  // A phone-sized viewport: the page is meant for a phone on the LAN.
  page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
});

afterAll(async () => {
  await browser?.close();
  await h?.t.stop();
});

const card = (id: string) => page.locator(`[data-light="${id}"]`);
const lastCommand = () => h.driver.commands.at(-1);

describe('web UI at /site/<key>', () => {
  it('loads with the site lights, scenes, groups, events and drivers, and goes live', async () => {
    const blocked: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(h.t.url) && !r.url().startsWith(h.t.url.replace('http', 'ws')))
        blocked.push(r.url());
    });
    await page.goto(`${h.t.url}/site/${h.sitekey}`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    expect(await page.locator('#site-name').textContent()).toBe('Test');
    expect(await page.locator('[data-light]').count()).toBe(2);
    await page.locator(`[data-scene="${scene._id}"]`).waitFor();
    await page.locator(`[data-group="${group._id}"]`).waitFor();
    await page.locator('#events li', { hasText: 'Wall switch: button 1 pressed' }).waitFor();
    await page.locator('[data-connection="td"]', { hasText: 'connected' }).waitFor();
    expect(blocked).toEqual([]); // no CDN or other third-party requests
  });

  it('toggles a light on and off', async () => {
    await card(desk._id).getByRole('switch').click();
    await expect.poll(() => lastCommand()).toMatchObject({ protocolid: 'd1', level: { on: true, bri: 255 } });
    await page.locator(`[data-light="${desk._id}"].lit`).waitFor();
    await card(hall._id).getByRole('switch').click();
    await expect.poll(() => lastCommand()).toMatchObject({ protocolid: 'h1', level: { on: true, bri: 255 } });
    await card(hall._id).getByRole('switch').click();
    await expect.poll(() => lastCommand()).toMatchObject({ protocolid: 'h1', level: { on: false, bri: 0 } });
  });

  it('dims with the slider', async () => {
    await card(desk._id).locator('input[type=range]').fill('64');
    await expect.poll(() => lastCommand()).toMatchObject({ protocolid: 'd1', level: { on: true, bri: 64 } });
    await expect.poll(async () => (await h.call('GET', '/light')).body[0].bri).toBe(64);
  });

  it('applies a scene and toggles a group', async () => {
    await page.locator(`[data-scene="${scene._id}"]`).click();
    await expect
      .poll(() => h.driver.commands.slice(-2).map((c) => [c.protocolid, c.level.bri]))
      .toEqual([
        ['d1', 180],
        ['h1', 255],
      ]);
    await expect.poll(() => card(desk._id).locator('input[type=range]').inputValue()).toBe('180');
    await page.locator(`[data-group="${group._id}"]`).click();
    await expect.poll(() => card(desk._id).getByRole('switch').isChecked()).toBe(false);
    await expect.poll(() => card(hall._id).getByRole('switch').isChecked()).toBe(false);
  });

  it('says which lights did not switch when a scene only partly applies, and when a switch is refused', async () => {
    h.driver.behaviour = 'fail';
    try {
      await page.locator(`[data-scene="${scene._id}"]`).click();
      await page.locator('#toast', { hasText: 'Could not switch Desk, Hall' }).waitFor();
      const before = await card(hall._id).getByRole('switch').isChecked();
      await card(hall._id).getByRole('switch').click();
      await page.locator('#toast', { hasText: '“Hall” did not respond' }).waitFor();
      // The switch goes back to the confirmed state.
      await expect.poll(() => card(hall._id).getByRole('switch').isChecked()).toBe(before);
      await page.locator('#toast').click(); // a tap dismisses the message
      await expect.poll(() => page.locator('#toast').textContent()).toBe('');
    } finally {
      h.driver.behaviour = 'report';
    }
  });

  it('shows a change made through the REST API without a reload', async () => {
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));
    // Live updates change cards and buttons in place: what a finger is on is never swapped for a new one.
    const held = [`[data-light="${desk._id}"]`, `[data-scene="${scene._id}"]`, `[data-group="${group._id}"]`];
    await page.evaluate((sel) => {
      (window as unknown as { held: Element[] }).held = sel.map((q) => document.querySelector(q)!);
    }, held);
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 222 });
    await expect.poll(() => card(desk._id).locator('input[type=range]').inputValue()).toBe('222');
    await expect(card(desk._id).locator('.level').textContent()).resolves.toBe('87 %');
    await expect(page.locator(`[data-group="${group._id}"] small`).textContent()).resolves.toBe('on');
    const same = await page.evaluate(
      (sel) =>
        sel.map((q, i) => (window as unknown as { held: Element[] }).held[i] === document.querySelector(q)),
      held,
    );
    expect(same).toEqual([true, true, true]);
    expect(await card(desk._id).getByRole('switch').isChecked()).toBe(true);
    const added = (
      await h.call('POST', '/light', { name: 'Porch', type: 'binary', vendor: 'test', testid: 'p1' })
    ).body;
    await card(added._id).waitFor();
    expect(await card(added._id).locator('.badge.new').isVisible()).toBe(false);
    // A light another plugin adopted from discovery carries a "new" badge until it is accepted.
    const found = await h.lighting.createLight(
      h.siteid,
      { name: 'Found', type: 'binary', vendor: 'test', protocolid: 'f1' },
      { new: true },
    );
    await card(found._id).locator('.badge.new').waitFor();
    await h.call('PUT', '/light', { _id: found._id, new: false });
    await card(found._id).locator('.badge.new').waitFor({ state: 'hidden' });
    h.driver.press('b1', 'long');
    await page.locator('#events li', { hasText: 'Wall switch: held' }).waitFor();
    h.driver.setConnected(false);
    await page.locator('[data-connection="td"].disconnected').waitFor();
    expect(navigations).toEqual([]);
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'lighting-web-ui.png'), fullPage: true });
    h.driver.setConnected(true);
    await page.locator('[data-connection="td"].connected').waitFor();
  });

  it('tells a newcomer on an empty site what is missing instead of showing a blank page', async () => {
    const fresh = (await h.t.admin('POST', '/admin/sites', { name: 'Empty' })).body as Json;
    const empty = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await empty.goto(`${h.t.url}/site/${fresh.sitekey}`);
    await empty.locator('#live', { hasText: 'live' }).waitFor();
    for (const text of ['No favourites yet', 'No lights yet', 'No scenes yet', 'No sensor events yet'])
      await empty.getByText(text).waitFor();
    await empty.getByText('Nothing is connected to this home yet').waitFor();
    await empty.screenshot({ path: path.join(OUT, 'lighting-web-ui-empty.png'), fullPage: true });
    await empty.close();
  });

  it('answers an unknown key with 404 and a page saying the link does not work', async () => {
    const res = await page.goto(`${h.t.url}/site/not-a-key`);
    expect(res?.status()).toBe(404);
  });

  it('tells the user the link stopped working when the site key is rotated', async () => {
    await page.goto(`${h.t.url}/site/${h.sitekey}`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    expect((await h.t.admin('POST', `/admin/sites/${h.siteid}/rotate-key`)).status).toBe(200);
    await page.locator('#live', { hasText: 'link expired' }).waitFor();
    await page.locator('#toast', { hasText: 'link no longer works' }).waitFor();
  });
});
