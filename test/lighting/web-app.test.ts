/**
 * The household app in a real browser at a phone and a landscape tablet viewport: rooms first, all-off,
 * favourites, dark mode, installable (manifest, icons, a service worker that keeps the shell offline),
 * English and German from the browser's language, and zero axe-core violations on every view.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

const PHONE = { width: 390, height: 844 };
const TABLET = { width: 1280, height: 800 };
let h: LightingHarness;
let browser: Browser;
let desk: Json;
let hall: Json;
let porch: Json;
let lamp: Json;
let living: Json;
let hallway: Json;
let study: Json;
let scene: Json;

beforeAll(async () => {
  h = await startLighting();
  const light = async (name: string, type: string, testid: string) =>
    (await h.call('POST', '/light', { name, type, vendor: 'test', testid })).body;
  desk = await light('Desk', 'dimmable', 'd1');
  hall = await light('Hall', 'binary', 'h1');
  porch = await light('Porch', 'binary', 'p1');
  lamp = await light('Lamp', 'dimmable', 'l1');
  living = (await h.call('POST', '/light/group', { name: 'Living room', lights: [desk._id] })).body;
  hallway = (await h.call('POST', '/light/group', { name: 'Hallway', lights: [hall._id] })).body;
  study = (await h.call('POST', '/light/group', { name: 'Study', lights: [lamp._id] })).body;
  scene = (
    await h.call('POST', '/scene', {
      name: 'Reading',
      state: [
        { _id: desk._id, on: true, bri: 180 },
        { _id: hall._id, on: true, bri: 255 },
      ],
    })
  ).body;
  browser = await launchBrowser();
  // A hub, seven writes and chromium: beyond the default hook limit on a 2-core machine at load 35.
}, 120_000);

afterAll(async () => {
  for (const opened of shared.values()) await (await opened).context.close();
  await browser?.close();
  await h?.t.stop();
});

async function open(viewport = PHONE, options: Parameters<Browser['newContext']>[0] = {}) {
  const context = await browser.newContext({ viewport, ...options });
  const page = await context.newPage();
  await page.goto(`${h.t.url}/site/${h.sitekey}`);
  await page.locator('#live.on').waitFor();
  return { context, page };
}

/**
 * One page per viewport for the tests that only look at what the hub holds (they change no light, setting
 * or storage of the page): opened once, then taken back to Home in the light scheme for the next such test,
 * as a fresh load would show it. A new page costs chromium a renderer, the app's load and axe-core again.
 */
const shared = new Map<number, ReturnType<typeof open>>();
async function openShared(viewport: typeof PHONE) {
  const opened = shared.get(viewport.width);
  if (!opened) {
    const first = open(viewport);
    shared.set(viewport.width, first);
    return first;
  }
  const { context, page } = await opened;
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('link', { name: 'Home' }).click();
  await expect.poll(() => page.locator('nav a[aria-current]').innerText()).toBe('Home');
  return { context, page };
}

/** The left edges and tops of the room sections, as laid out. */
const roomBoxes = (page: Page) =>
  page.locator('section.room').evaluateAll((nodes) =>
    nodes.map((n) => {
      const r = n.getBoundingClientRect();
      return { name: n.querySelector('h2')?.textContent, x: Math.round(r.x), y: Math.round(r.y) };
    }),
  );

describe('the household app: rooms first, on a phone and on a wall tablet', () => {
  it('shows the groups as rooms with their lights; lights in no room come last', async () => {
    const { page } = await openShared(PHONE);
    const rooms = await roomBoxes(page);
    expect(rooms.map((r) => r.name)).toEqual(['Living room', 'Hallway', 'Study', 'Other lights']);
    expect(await page.locator(`[data-room="${living._id}"] [data-light]`).count()).toBe(1);
    await page.locator(`[data-room="${living._id}"] [data-light="${desk._id}"]`).waitFor();
    await page.locator(`[data-room="none"] [data-light="${porch._id}"]`).waitFor();
    await page.locator(`[data-room="${hallway._id}"] [data-light="${hall._id}"]`).waitFor();
    // Each light has one card, also when two rooms list it.
    expect(await page.locator('[data-light]').count()).toBe(4);
    // A phone: one column, rooms below each other.
    expect(new Set(rooms.map((r) => r.x)).size).toBe(1);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scroll).toBeLessThanOrEqual(PHONE.width);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('uses several columns on a landscape tablet', async () => {
    const { page } = await openShared(TABLET);
    const rooms = await roomBoxes(page);
    const firstRow = rooms.filter((r) => r.y === rooms[0]!.y);
    expect(firstRow.length).toBeGreaterThanOrEqual(3);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('switches every light that is on off with one button, and toggles a room from its heading', async () => {
    const { context, page } = await open();
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 200 });
    await h.call('PUT', '/light/state', { _id: porch._id, on: true, bri: 255 });
    const allOff = page.getByRole('button', { name: 'All off' });
    await expect.poll(() => allOff.isEnabled()).toBe(true);
    const before = h.driver.commands.length;
    await allOff.click();
    await page.locator('#toast', { hasText: 'All lights are off.' }).waitFor();
    expect(
      h.driver.commands
        .slice(before)
        .map((c) => [c.protocolid, c.level.on])
        .sort(),
    ).toEqual([
      ['d1', false],
      ['p1', false],
    ]);
    await expect.poll(() => allOff.isDisabled()).toBe(true);
    const toggle = page.getByRole('button', { name: 'Hallway', exact: true });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('false');
    await context.close();
  });

  it('keeps favourites per device: chosen in Set up, shown first at home, one tap applies them', async () => {
    const { context, page } = await open();
    await page.getByText('No favourites yet').waitFor();
    await page.getByRole('link', { name: 'Set up' }).click();
    await page.locator(`[data-setup-scene="${scene._id}"]`).getByLabel('Favourite').check();
    await page.locator(`[data-setup-room="${study._id}"]`).getByLabel('Favourite').check();
    await page.getByRole('link', { name: 'Home' }).click();
    const fav = page.locator('#favourites');
    expect(await fav.getByRole('button').allInnerTexts()).toEqual(['Reading\nscene', 'Study\noff']);
    const before = h.driver.commands.length;
    await fav.getByRole('button', { name: /Reading/ }).click();
    await expect.poll(() => h.driver.commands.length).toBe(before + 2);
    // Another device has its own favourites; this one keeps them over a reload.
    await page.reload();
    await page.locator('#favourites [data-fav]').first().waitFor();
    expect(await page.locator('#favourites [data-fav]').count()).toBe(2);
    const other = await open();
    await other.page.getByText('No favourites yet').waitFor();
    await other.context.close();
    await context.close();
  });

  it('follows the system colour scheme: dark text on light, light text on dark', async () => {
    const { page } = await openShared(PHONE);
    const ink = () =>
      page.evaluate(() => {
        const [r, g, b] = (getComputedStyle(document.body).color.match(/\d+/g) ?? []).map(Number);
        return ((r ?? 0) + (g ?? 0) + (b ?? 0)) / 3;
      });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await ink()).toBeLessThan(60);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await ink()).toBeGreaterThan(190);
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('history', () => {
  it('draws each light as a timeline row and adds a change made while the view is open', async () => {
    const { page } = await openShared(TABLET);
    await page.getByRole('link', { name: 'History' }).click();
    const chart = page.getByRole('img', { name: /^Timeline of 4 lights and 0 sensors, Last 24 hours$/ });
    await chart.waitFor();
    const rows = await chart.locator('text').allTextContents();
    for (const name of ['Desk', 'Hall', 'Porch', 'Lamp']) expect(rows).toContain(name);
    const before = await chart.locator('rect.on').count();
    await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 90 });
    await expect.poll(() => chart.locator('rect.on').count(), { timeout: 15_000 }).toBeGreaterThan(before);
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await page.getByRole('img', { name: /Last 7 days$/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('true');
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('installable and available offline', () => {
  it('links a manifest that starts at this site, with PNG icons of 192 and 512 px', async () => {
    const { page } = await openShared(PHONE);
    const href = await page.locator('link[rel=manifest]').getAttribute('href');
    expect(href).toBe(`/site/${h.sitekey}/manifest.webmanifest`);
    const res = await fetch(`${h.t.url}${href}`);
    expect(res.headers.get('content-type')).toContain('application/manifest+json');
    const manifest = (await res.json()) as Json;
    expect(manifest).toMatchObject({
      name: 'Test · Hearth',
      start_url: `/site/${h.sitekey}`,
      scope: `/site/${h.sitekey}`,
      display: 'standalone',
    });
    for (const size of [192, 512]) {
      const icon = manifest.icons.find((i: Json) => i.sizes === `${size}x${size}`);
      const png = await fetch(`${h.t.url}${icon.src}`);
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      // PNG IHDR: width and height at bytes 16 and 20
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([size, size]);
    }
    expect((await fetch(`${h.t.url}/site/not-a-key/manifest.webmanifest`)).status).toBe(404);
  });

  it('keeps the shell with a service worker and says it is the saved app when the network is gone', async () => {
    const { context, page } = await open();
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    expect(await page.locator('#offline-note').isHidden()).toBe(true);
    await context.setOffline(true);
    await page.reload();
    await page.locator('#offline-note').waitFor();
    expect(await page.locator('#offline-note').innerText()).toContain('this is the saved app');
    expect(await page.getByRole('link', { name: 'Set up' }).isVisible()).toBe(true);
    await page.locator('#live', { hasText: 'offline, reconnecting…' }).waitFor();
    await context.setOffline(false);
    await page.locator('#live.on').waitFor();
    await page.locator('#offline-note').waitFor({ state: 'hidden' });
    await context.close();
  });

  it('serves every module of the app as JavaScript and keeps each one for offline use', async () => {
    // start.js belongs to the household start page at `/`, outside the worker's scope (`/site/`).
    const modules = readdirSync(
      fileURLToPath(new URL('../../plugins/lighting/web/', import.meta.url)),
    ).filter((f) => f.endsWith('.js') && f !== 'sw.js' && f !== 'start.js');
    expect(modules).toContain('setup-pairing.js');
    const worker = await (await fetch(`${h.t.url}/lighting/ui/sw.js`)).text();
    for (const name of modules) {
      const res = await fetch(`${h.t.url}/lighting/ui/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toContain('text/javascript');
      expect(worker, name).toContain(`'${name}'`);
    }
  });

  it('serves the worker with the header that lets it control the pages under /site/', async () => {
    const res = await fetch(`${h.t.url}/lighting/ui/sw.js`);
    expect(res.headers.get('service-worker-allowed')).toBe('/site/');
    expect(res.headers.get('content-type')).toContain('text/javascript');
  });
});

describe('languages and accessibility', () => {
  it('speaks German to a German browser and English to others', async () => {
    const { context, page } = await open(PHONE, { locale: 'de-AT' });
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await page.getByRole('button', { name: 'Alles aus' }).waitFor();
    await page.getByRole('link', { name: 'Einrichten' }).click();
    await page.getByRole('heading', { name: 'Neue Geräte' }).waitFor();
    await page.getByRole('heading', { name: 'Taster und Sensoren' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // A dead link answers in German too.
    await page.goto(`${h.t.url}/site/not-a-key`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Dieser Link funktioniert nicht');
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await context.close();
    const fr = await open(PHONE, { locale: 'fr-FR' });
    await fr.page.getByRole('button', { name: 'All off' }).waitFor();
    await fr.context.close();
  });

  // One test per size: eight scans each, so neither runs into the time limit on a loaded machine.
  it.each([
    ['phone', PHONE],
    ['tablet', TABLET],
  ])('has no axe-core violations on any view at %s size, in both colour schemes', async (_size, viewport) => {
    const { page } = await openShared(viewport);
    for (const view of ['Home', 'Set up', 'Schedules', 'History']) {
      await page.getByRole('link', { name: view }).click();
      await expect.poll(() => page.locator('nav a[aria-current]').innerText()).toBe(view);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        expect(await axeViolations(page), `${view} ${viewport.width} ${colorScheme}`).toEqual([]);
      }
    }
  });

  it('moves focus to the view a link opens, and names the current one', async () => {
    const { context, page } = await open();
    await page.getByRole('link', { name: 'Schedules' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(await page.getByRole('link', { name: 'Schedules' }).getAttribute('aria-current')).not.toBeNull();
    await context.close();
  });
});
