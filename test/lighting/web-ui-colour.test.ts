/**
 * Colour in the web UI, in a real browser (Debian chromium via playwright-core): the colour-temperature
 * slider and the colour picker of lights that have them, used by keyboard; the confirmed colour on the
 * card; a scene that keeps colours; a dimmable-only card unchanged.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
let browser: Browser;
let page: Page;
let desk: Json;
let ambiance: Json;
let colour: Json;
let scene: Json;
const errors: string[] = [];

beforeAll(async () => {
  h = await startLighting();
  const add = async (body: Json) =>
    (await h.call('POST', '/light', { type: 'dimmable', vendor: 'test', ...body })).body;
  desk = await add({ name: 'Desk', testid: 'd' });
  ambiance = await add({ name: 'Ambiance', testid: 'a', capabilities: { ct: { min: 153, max: 500 } } });
  colour = await add({ name: 'Lounge', testid: 'c', capabilities: { ct: { min: 153, max: 500 }, xy: {} } });
  scene = (
    await h.call('POST', '/scene', {
      name: 'Movie',
      state: [
        { _id: colour._id, on: true, bri: 60, hex: '#0000ff' },
        { _id: ambiance._id, on: true, bri: 90, kelvin: 2200 },
      ],
    })
  ).body;
  browser = await launchBrowser();
  page = await browser.newPage({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    hasTouch: true,
  });
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
const swatch = (id: string) =>
  card(id)
    .locator('.swatch')
    .evaluate((s) => getComputedStyle(s).backgroundColor);

describe('colour in the web UI', () => {
  it('shows a colour-temperature slider and a colour picker only where the light has them', async () => {
    expect(await card(desk._id).locator('input.ct, input.xy, .swatch').count()).toBe(0);
    expect(await card(ambiance._id).locator('input.ct').count()).toBe(1);
    expect(await card(ambiance._id).locator('input.xy').count()).toBe(0);
    expect(await card(colour._id).locator('input.ct').count()).toBe(1);
    expect(await card(colour._id).locator('input.xy').count()).toBe(1);
    expect(
      await card(ambiance._id).getByRole('slider', { name: 'Ambiance colour temperature' }).count(),
    ).toBe(1);
  });

  it('the colour-temperature slider works by keyboard and sends Kelvin; the card shows the confirmed white', async () => {
    const slider = card(ambiance._id).getByRole('slider', { name: 'Ambiance colour temperature' });
    await slider.focus();
    await page.keyboard.press('ArrowRight'); // a step cooler
    await expect.poll(() => lastCommand()?.colormode).toBe('ct');
    await page.keyboard.press('Home'); // warmest
    // a range input fires change on keyboard use
    await expect.poll(() => lastCommand()?.ct, { message: errors.join('\n') }).toBe(500);
    expect(lastCommand()).toMatchObject({ on: true, colormode: 'ct' });
    await expect.poll(() => slider.getAttribute('aria-valuetext')).toBe('2000 K, warm white');
    await expect
      .poll(() => card(ambiance._id).locator('.swatch').getAttribute('title'))
      .toBe('2000 K, warm white');
    const warm = await swatch(ambiance._id);
    await page.keyboard.press('End'); // coolest
    await expect.poll(() => lastCommand()?.ct).toBe(153);
    await expect.poll(() => swatch(ambiance._id)).not.toBe(warm);
  });

  it('the colour picker sends #rrggbb; the card shows the confirmed colour', async () => {
    const picker = card(colour._id).getByLabel('Lounge colour', { exact: true });
    // the native picker's value as a person sets it, then its change event
    await picker.evaluate((input: HTMLInputElement) => {
      input.value = '#ff0000';
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await expect.poll(() => lastCommand()?.colormode).toBe('xy');
    expect(lastCommand().xy[0]).toBeGreaterThan(0.6);
    await expect.poll(() => swatch(colour._id)).toMatch(/^(rgb|color)/);
    const red = await swatch(colour._id);
    const light = (await h.call('GET', '/light')).body.find((l: Json) => l._id === colour._id);
    expect(light.colormode).toBe('xy');
    expect(await card(colour._id).locator('.swatch').getAttribute('aria-label')).toBe('Lounge: colour');
    // a push from the hub (another app) repaints the swatch
    await h.call('PUT', '/light/state', { _id: colour._id, on: true, bri: 200, hex: '#00ff00' });
    await expect.poll(() => swatch(colour._id)).not.toBe(red);
  });

  it('a scene brings back its colours', async () => {
    await page.locator(`[data-scene="${scene._id}"]`).click();
    await expect
      .poll(async () => (await h.call('GET', '/light')).body.find((l: Json) => l._id === colour._id).xy[1])
      .toBeLessThan(0.1);
    await expect
      .poll(() => card(ambiance._id).locator('.swatch').getAttribute('title'))
      .toBe('2200 K, warm white');
  });

  it('the colour-temperature slider works by touch: a tap at either end sends that end', async () => {
    const slider = card(colour._id).locator('input.ct');
    await slider.scrollIntoViewIfNeeded();
    const box = await slider.boundingBox();
    if (!box) throw new Error('no slider box');
    const y = box.y + box.height / 2;
    // a tap where the thumb already is changes nothing, so each end is tapped from the other
    await page.touchscreen.tap(box.x + box.width - 3, y); // cool end
    await expect.poll(() => lastCommand()?.ct, { message: errors.join('\n') }).toBeLessThanOrEqual(160);
    expect(lastCommand()).toMatchObject({ on: true, colormode: 'ct' });
    await expect.poll(() => card(colour._id).locator('.swatch').getAttribute('title')).toMatch(/daylight$/);
    await page.touchscreen.tap(box.x + 3, y); // warm end
    await expect.poll(() => lastCommand()?.ct).toBeGreaterThanOrEqual(480);
    await expect.poll(() => card(colour._id).locator('.swatch').getAttribute('title')).toMatch(/warm white$/);
  });

  it('the controls are large enough to touch (at least 32 px tall)', async () => {
    for (const sel of ['input.ct', 'input.xy']) {
      const box = await card(colour._id).locator(sel).boundingBox();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(32);
    }
  });
});
