/**
 * The web UI as a household meets it, in a real browser: it shows what the hub confirmed (and that a command
 * is pending while it waits), speaks plain language, reaches WCAG AA text contrast, names its controls well,
 * and a wrong link gives a page, not JSON.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type LightingHarness, request, startLighting } from './harness.ts';

let h: LightingHarness;
let browser: Browser;
let page: Page;
let desk: Json;
let hall: Json;
let group: Json;

beforeAll(async () => {
  // The hub's own read-back of a silent light is out of the picture: only the page's wait is tested.
  h = await startLighting({ config: { plugins: { lighting: { reconcileMs: 600_000 } } } });
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  hall = (await h.call('POST', '/light', { name: 'Hall', type: 'binary', vendor: 'test', testid: 'h1' }))
    .body;
  group = (await h.call('POST', '/light/group', { name: 'Downstairs', lights: [desk._id, hall._id] })).body;
  const button = (
    await h.call('POST', '/sensor', { name: 'Wall switch', vendor: 'test', testid: 'b1', type: 'button' })
  ).body;
  for (const event of ['1', 'button1-double', 'long'])
    await h.call('POST', '/sensor/event', { _id: button._id, event });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  // The page's own timers run on a clock the test moves; the hub and the socket run in real time.
  await page.clock.install();
  await page.goto(`${h.t.url}/site/${h.sitekey}`);
  await page.locator('#live', { hasText: 'live' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await h?.t.stop();
});

const card = (id: string) => page.locator(`[data-light="${id}"]`);
const toSwitch = (id: string) => card(id).getByRole('switch');

describe('the web UI keeps a switch position the hub never confirmed (regression)', () => {
  it('shows the tap as pending, then the confirmed state when no report follows', async () => {
    h.driver.behaviour = 'silent';
    try {
      expect(await toSwitch(hall._id).isChecked()).toBe(false);
      await toSwitch(hall._id).click();
      await expect.poll(() => h.driver.commands.at(-1)?.level).toEqual({ on: true, bri: 255 });
      // Answered `confirmed: false`: the card says it is waiting.
      await page.locator(`[data-light="${hall._id}"][aria-busy="true"].pending`).waitFor();
      expect(await card(hall._id).locator('.level').textContent()).toBe('switching on…');
      await page.clock.fastForward(10_000);
      await page.locator(`[data-light="${hall._id}"][aria-busy="false"]`).waitFor();
      expect(await toSwitch(hall._id).isChecked()).toBe(false);
      expect(await card(hall._id).locator('.level').textContent()).toBe('off');
      await page.locator('#toast', { hasText: '“Hall” did not confirm the change' }).waitFor();
      expect((await h.call('GET', '/light')).body.find((l: Json) => l._id === hall._id).on).toBe(false);
    } finally {
      h.driver.behaviour = 'report';
    }
  });

  it('settles a pending light on the report that comes late, and at once on a confirmed answer', async () => {
    h.driver.behaviour = 'silent';
    try {
      await toSwitch(hall._id).click();
      await page.locator(`[data-light="${hall._id}"].pending`).waitFor();
      h.driver.external('h1', { on: true, bri: 255 });
      await page.locator(`[data-light="${hall._id}"][aria-busy="false"].lit`).waitFor();
      expect(await toSwitch(hall._id).isChecked()).toBe(true);
    } finally {
      h.driver.behaviour = 'report';
    }
    await toSwitch(hall._id).click();
    await page.locator(`[data-light="${hall._id}"][aria-busy="false"]:not(.lit)`).waitFor();
    expect(await toSwitch(hall._id).isChecked()).toBe(false);
  });
});

describe('household-facing texts, contrast and names (regression)', () => {
  it('says what went wrong in plain words: no "Failed to fetch", no driver ids, no raw event names', async () => {
    await page.route('**/light/state', (route) => route.abort('internetdisconnected'));
    await toSwitch(desk._id).click();
    await page.locator('#toast', { hasText: 'Could not reach the hub' }).waitFor();
    expect(await toSwitch(desk._id).isChecked()).toBe(false);
    await page.unroute('**/light/state');

    h.driver.behaviour = 'fail';
    try {
      await toSwitch(hall._id).click();
      await page.locator('#toast', { hasText: '“Hall” did not respond. Try again in a moment.' }).waitFor();
    } finally {
      h.driver.behaviour = 'report';
    }
    const text = await page.locator('body').innerText();
    for (const raw of ['Failed to fetch', 'driver', `(${'test'})`, 'button1-double', h.siteid, desk._id])
      expect(text).not.toContain(raw);
    expect(await page.locator('[data-connection="td"]').innerText()).toBe('Test devices: connected');
    const events = await page.locator('#events li').allInnerTexts();
    // Each line starts with its time of day.
    expect(events.map((e) => e.slice(e.indexOf('Wall switch')))).toEqual([
      'Wall switch: held',
      'Wall switch: button 1 pressed twice',
      'Wall switch: button 1 pressed',
    ]);
  });

  it('gives sliders a value text in percent and group buttons their name alone, with the state apart', async () => {
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 222 });
    const slider = card(desk._id).getByRole('slider', { name: 'Desk brightness' });
    await expect.poll(() => slider.getAttribute('aria-valuetext')).toBe('87 %');
    await slider.fill('64');
    await expect.poll(() => slider.getAttribute('aria-valuetext')).toBe('25 %');
    const button = page.getByRole('button', { name: 'Downstairs', exact: true });
    expect(await button.count()).toBe(1);
    expect(await button.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator(`[data-group="${group._id}"]`).ariaSnapshot()).toBe(
      '- button "Downstairs" [pressed]',
    );
  });

  it('reaches WCAG AA text contrast in light and dark mode, toast included', async () => {
    h.driver.behaviour = 'fail';
    try {
      await toSwitch(hall._id).click();
      await page.locator('#toast:not(:empty)').waitFor();
    } finally {
      h.driver.behaviour = 'report';
    }
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await lowContrast(page), colorScheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });
});

describe('a wrong site key in the browser shows raw JSON (regression)', () => {
  it('serves browsers an HTML page in plain words and keeps JSON for API clients', async () => {
    const other = await browser.newPage();
    const res = await other.goto(`${h.t.url}/site/not-a-key`);
    expect(res?.status()).toBe(404);
    expect(res?.headers()['content-type']).toContain('text/html');
    expect(await other.getByRole('heading', { level: 1 }).innerText()).toBe('This link does not work');
    expect(await other.locator('body').innerText()).not.toContain('{');
    for (const colorScheme of ['light', 'dark'] as const) {
      await other.emulateMedia({ colorScheme });
      expect(await lowContrast(other), colorScheme).toEqual([]);
    }
    await other.close();
    expect(await request(`${h.t.url}/site/not-a-key`, 'GET')).toMatchObject({
      status: 404,
      body: { message: 'unknown site' },
    });
    const json = await request(`${h.t.url}/site/not-a-key`, 'GET', undefined, { accept: 'application/json' });
    expect(json.body).toEqual({ message: 'unknown site' });
  });
});

/**
 * Visible text whose contrast with what is behind it is under WCAG 2.2 AA (4.5:1, 3:1 for large text), from
 * the computed colours: backgrounds composited from the canvas up through every ancestor.
 */
function lowContrast(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    type Rgba = [number, number, number, number];
    const parse = (c: string): Rgba => {
      const n = (c.match(/[\d.]+/g) ?? []).map(Number);
      return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0, n[3] ?? 1];
    };
    const over = (top: Rgba, under: Rgba): Rgba => {
      const a = top[3];
      return [0, 1, 2].map((i) => top[i]! * a + under[i]! * (1 - a)).concat(1) as Rgba;
    };
    const lum = (c: Rgba) => {
      const ch = c.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * ch[0]! + 0.7152 * ch[1]! + 0.0722 * ch[2]!;
    };
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const canvas: Rgba = dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
    const failures: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
      if (!own || el.getClientRects().length === 0) continue;
      const chain: HTMLElement[] = [];
      for (let e: HTMLElement | null = el; e; e = e.parentElement) chain.unshift(e);
      let bg = canvas;
      for (const e of chain) bg = over(parse(getComputedStyle(e).backgroundColor), bg);
      const style = getComputedStyle(el);
      const fg = over(parse(style.color), bg);
      const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a) as [number, number];
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = Number.parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        failures.push(
          `${el.tagName.toLowerCase()}.${el.className} "${el.textContent?.trim()}" ${ratio.toFixed(2)}`,
        );
    }
    return failures;
  });
}
