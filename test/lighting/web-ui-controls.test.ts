/**
 * The household app's last steps without a terminal, in a real browser (Debian chromium): a language switch
 * kept in the browser, a brightness slider that moves a few percent per arrow key, and a colour picker that
 * shows a white light's own white (its black-body colour), not black.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let desk: Json;
let lounge: Json;
const errors: string[] = [];

beforeAll(async () => {
  h = await startLighting();
  const add = async (body: Json) =>
    (await h.call('POST', '/light', { type: 'dimmable', vendor: 'test', ...body })).body;
  desk = await add({ name: 'Desk', testid: 'd' });
  lounge = await add({ name: 'Lounge', testid: 'c', capabilities: { ct: { min: 153, max: 500 }, xy: {} } });
  browser = await launchBrowser();
  // A browser set to English: the switch, not the browser, makes the app German.
  context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${h.t.url}/site/${h.sitekey}`);
  await page.locator('#live', { hasText: 'live' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await h?.t.stop();
});

const card = (id: string) => page.locator(`[data-light="${id}"]`);
const lastCommand = () => h.driver.commands.at(-1)?.level as Json;
const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as number[];

describe('the brightness slider by keyboard', () => {
  it('moves a few percent per arrow key (not 0.4 %), more with PageUp/PageDown, with ARIA slider values', async () => {
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 128 });
    const slider = card(desk._id).getByRole('slider', { name: 'Desk brightness' });
    await expect.poll(() => slider.inputValue()).toBe('128');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => lastCommand()?.bri, { message: errors.join('\n') }).toBe(141);
    expect(await slider.getAttribute('aria-valuetext')).toBe('55 %');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => lastCommand()?.bri).toBe(128);
    await page.keyboard.press('PageUp');
    await expect.poll(() => lastCommand()?.bri).toBe(192);
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    await expect.poll(() => lastCommand()?.bri).toBe(64);
    await page.keyboard.press('End');
    await expect.poll(() => lastCommand()?.bri).toBe(255);
    expect(await slider.getAttribute('aria-valuetext')).toBe('100 %');
    await page.keyboard.press('Home');
    await expect.poll(() => lastCommand()).toEqual({ on: false, bri: 0 });
    expect(await slider.getAttribute('aria-valuetext')).toBe('off');
  });
});

describe('the colour picker', () => {
  it('shows the black-body colour of a light in colour-temperature mode, not black', async () => {
    const picker = card(lounge._id).locator('input.xy');
    await h.call('PUT', '/light/state', { _id: lounge._id, on: true, bri: 200, kelvin: 2700 });
    await expect.poll(() => picker.inputValue()).not.toBe('#000000');
    const [r, g, b] = rgb(await picker.inputValue()) as [number, number, number];
    // Warm white: red strongest, blue weakest, still a white (no channel near zero).
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
    expect(b).toBeGreaterThan(64);
    await h.call('PUT', '/light/state', { _id: lounge._id, on: true, bri: 200, kelvin: 6500 });
    await expect.poll(async () => rgb(await picker.inputValue())[2]).toBeGreaterThanOrEqual(200);
    const [r2, , b2] = rgb(await picker.inputValue()) as [number, number, number];
    expect(Math.abs(r2 - b2)).toBeLessThan(48); // daylight: nearly neutral
  });
});

describe('the language switch', () => {
  it('switches every text of the app, is kept by the browser, and goes back', async () => {
    const select = page.getByRole('combobox', { name: 'Language' });
    expect(await select.inputValue()).toBe('en');
    await Promise.all([page.waitForEvent('load'), select.selectOption('de')]);
    await page.locator('#live', { hasText: 'verbunden' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.locator('#all-off').textContent()).toBe('Alles aus');
    expect(await card(desk._id).getByRole('slider', { name: 'Desk Helligkeit' }).count()).toBe(1);
    expect(await page.getByRole('combobox', { name: 'Sprache' }).inputValue()).toBe('de');
    expect(await axeViolations(page)).toEqual([]);

    // Kept in this browser: a new page of the same browser opens in German.
    const again = await context.newPage();
    await again.goto(`${h.t.url}/site/${h.sitekey}`);
    await again.locator('#all-off', { hasText: 'Alles aus' }).waitFor();
    await again.close();

    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('combobox', { name: 'Sprache' }).selectOption('en'),
    ]);
    await page.locator('#all-off', { hasText: 'All off' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
