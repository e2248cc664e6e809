/**
 * The console's Translation keys page with real usage: deepl-node translates through Hearth (a fake DeepL
 * upstream at the wire) on two developer keys, yesterday and today, some with a reporting tag. The page's
 * bar chart, its by-key-and-day table and the custom-tag table must show exactly the characters billed;
 * renaming a key in place relabels its past usage. Zero axe-core violations, tablet and phone.
 *
 * Usage is recorded by the day of `new Date()` inside the hub (accounting/usage-ledger.ts), and the hub runs
 * in this process: yesterday's translations run with only `Date` faked (vi.useFakeTimers toFake ['Date']),
 * so every timer, socket and store write keeps real time.
 */
import * as deepl from 'deepl-node';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { fakeDeepl } from '../translation/fakes/deepl.ts';
import type { FakeUpstream } from '../translation/fakes/server.ts';
import { startTranslation, type TranslationHub } from '../translation/harness.ts';

let h: TranslationHub;
let upstream: FakeUpstream;
let browser: Browser;
let page: Page;
let kitchen: { secret: string; id: string };
let hall: { secret: string; id: string };

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// Fixed before anything runs, so a test crossing midnight UTC fails loudly rather than miscounting.
const now = Date.now();
const today = dayOf(now);
const yesterday = dayOf(now - DAY);

/** What each key translates on each day, with the reporting tag it sends (empty: none). */
const plan = {
  yesterday: [
    { key: 'kitchen', tag: 'menu', text: 'Hello world' },
    { key: 'kitchen', tag: '', text: 'Dinner is ready' },
    { key: 'hall', tag: 'doorbell', text: 'Someone is at the door' },
  ],
  today: [
    { key: 'kitchen', tag: 'menu', text: 'Lights on' },
    { key: 'hall', tag: '', text: 'Good night' },
    { key: 'hall', tag: 'doorbell', text: 'Parcel' },
  ],
};
const chars = (day: keyof typeof plan, key?: string, tag?: string) =>
  plan[day]
    .filter((p) => (key === undefined || p.key === key) && (tag === undefined || p.tag === tag))
    .reduce((n, p) => n + [...p.text].length, 0);

async function translateAll(day: keyof typeof plan): Promise<void> {
  for (const p of plan[day]) {
    const secret = (p.key === 'kitchen' ? kitchen : hall).secret;
    const translator = new deepl.Translator(secret, {
      serverUrl: h.t.url,
      maxRetries: 0,
      minTimeout: 5000,
      ...(p.tag ? { headers: { 'X-DeepL-Reporting-Tag': p.tag } } : {}),
    });
    const result = await translator.translateText(p.text, 'en', 'de');
    expect(result.billedCharacters).toBe([...p.text].length);
  }
}

beforeAll(async () => {
  upstream = await fakeDeepl('k');
  h = await startTranslation({
    engines: [{ type: 'deepl', url: upstream.url, apiKey: 'k' }],
    // One custom tag a page: the page's "Show more custom tags" is needed for the second.
    translation: { analyticsPageSize: 1 },
    plugins: ['console'],
  });
  kitchen = await h.createKey('Kitchen');
  hall = await h.createKey('Hall');
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(now - DAY);
    await translateAll('yesterday');
  } finally {
    vi.useRealTimers();
  }
  await translateAll('today');
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  page.setDefaultTimeout(10_000);
  await page.goto(`${h.t.adminUrl}/admin/ui/#translation-keys`);
  await page.getByLabel('Admin key').fill(h.t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.t.stop();
  await upstream?.close();
});

const barTitles = () => page.locator('#usage-chart svg rect title').allTextContents();
const usageRows = () =>
  page
    .getByRole('table', { name: 'Characters translated in the last 30 days, by key and day' })
    .locator('tbody tr')
    .allInnerTexts();

describe('translation usage in the console', () => {
  it('the API recorded the usage on two days (what the page must show)', async () => {
    const res = await h.admin(
      'GET',
      `/v2/admin/analytics?start_date=${yesterday}&end_date=${today}&group_by=key_and_day`,
    );
    const rows = (
      res.body.usage_report.key_and_day_usages as Array<{
        api_key_label: string;
        usage_date: string;
        usage: { total_characters: number };
      }>
    ).map((r) => [r.usage_date.slice(0, 10), r.api_key_label, r.usage.total_characters]);
    expect(rows).toEqual(
      expect.arrayContaining([
        [yesterday, 'Kitchen', chars('yesterday', 'kitchen')],
        [yesterday, 'Hall', chars('yesterday', 'hall')],
        [today, 'Kitchen', chars('today', 'kitchen')],
        [today, 'Hall', chars('today', 'hall')],
      ]),
    );
    expect(rows).toHaveLength(4);
  });

  it('draws each key’s characters per day as bars and names the chart by its figures', async () => {
    await page.locator('#page-title', { hasText: 'Translation keys' }).waitFor();
    const total = chars('yesterday') + chars('today');
    const most = Math.max(chars('yesterday'), chars('today'));
    const chart = page.getByRole('img', { name: /^Characters per day by key: / });
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toMatch(
      new RegExp(`^Characters per day by key: ${total} in 3[01] days from 2 keys, most on one day ${most}$`),
    );
    expect((await barTitles()).sort()).toEqual(
      [
        `${yesterday}, Kitchen: ${chars('yesterday', 'kitchen')} characters`,
        `${yesterday}, Hall: ${chars('yesterday', 'hall')} characters`,
        `${today}, Kitchen: ${chars('today', 'kitchen')} characters`,
        `${today}, Hall: ${chars('today', 'hall')} characters`,
      ].sort(),
    );
    // Stacked: on each day the two keys' bars share an x and together reach the day's share of the top.
    const bars = await page
      .locator('#usage-chart svg rect')
      .evaluateAll((rects) =>
        rects.map((r) => [r.getAttribute('x'), Number(r.getAttribute('height')), r.getAttribute('fill')]),
      );
    expect(new Set(bars.map((b) => b[0])).size).toBe(2);
    expect(new Set(bars.map((b) => b[2])).size).toBe(2);
    const heightOn = (x: unknown) => bars.filter((b) => b[0] === x).reduce((n, b) => n + (b[1] as number), 0);
    const [first, second] = [...new Set(bars.map((b) => b[0]))];
    expect(heightOn(first) / heightOn(second)).toBeCloseTo(chars('yesterday') / chars('today'), 5);
    expect(await page.locator('#usage-chart .legend li').allInnerTexts()).toEqual(
      expect.arrayContaining(['Kitchen', 'Hall']),
    );
    expect(await axeViolations(page)).toEqual([]);
  });

  it('tables the characters by key and day, and by custom tag', async () => {
    expect(await usageRows()).toEqual(
      expect.arrayContaining([
        `${yesterday}\tKitchen\t${chars('yesterday', 'kitchen')}`,
        `${yesterday}\tHall\t${chars('yesterday', 'hall')}`,
        `${today}\tKitchen\t${chars('today', 'kitchen')}`,
        `${today}\tHall\t${chars('today', 'hall')}`,
      ]),
    );
    expect(await usageRows()).toHaveLength(4);
    const tags = () =>
      page
        .getByRole('table', { name: 'Characters by custom tag, last 30 days' })
        .locator('tbody tr')
        .allInnerTexts();
    const tagged = (tag: string) => chars('yesterday', undefined, tag) + chars('today', undefined, tag);
    // Tags come sorted by name, a page at a time.
    expect(await tags()).toEqual([`doorbell\t${tagged('doorbell')}`]);
    await page.getByRole('button', { name: 'Show more custom tags' }).click();
    await page.locator('#say', { hasText: '2 custom tags shown.' }).waitFor();
    await expect.poll(tags).toEqual([`doorbell\t${tagged('doorbell')}`, `menu\t${tagged('menu')}`]);
    await expect
      .poll(() => page.getByRole('button', { name: 'Show more custom tags' }).isVisible())
      .toBe(false);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('renames a key in place: its past usage carries the new label; the key keeps working', async () => {
    const row = page.locator(`[data-key="${hall.id}"]`);
    await row.getByRole('button', { name: 'Rename key Hall' }).click();
    await row.getByLabel('New label of Hall').fill('Hallway');
    expect(await axeViolations(page)).toEqual([]);
    await row.getByRole('button', { name: 'Save the label of Hall' }).click();
    await page.locator('#say', { hasText: 'Renamed key Hall to Hallway.' }).waitFor();
    await row.getByRole('button', { name: 'Rename key Hallway' }).waitFor();
    const keys = (await h.admin('GET', '/v2/admin/developer-keys')).body as Array<{
      key_id: string;
      label: string;
    }>;
    expect(keys.find((k) => k.key_id === hall.id)?.label).toBe('Hallway');
    // The usage tables and chart reload after the key list: wait for them, never for a fixed time.
    await expect
      .poll(usageRows)
      .toEqual(
        expect.arrayContaining([
          `${yesterday}\tHallway\t${chars('yesterday', 'hall')}`,
          `${today}\tHallway\t${chars('today', 'hall')}`,
        ]),
      );
    await expect.poll(barTitles).toContain(`${yesterday}, Hallway: ${chars('yesterday', 'hall')} characters`);
    expect((await barTitles()).some((t) => t.includes('Hall:'))).toBe(false);
    // Only the label changed: the same secret still translates.
    expect((await h.translator(hall.secret).translateText('Hi', 'en', 'de')).billedCharacters).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('has no axe-core violations with the data on a phone', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      phone.setDefaultTimeout(10_000);
      await phone.goto(`${h.t.adminUrl}/admin/ui/#translation-keys`);
      await phone.getByLabel('Admin key').fill(h.t.adminKey);
      await phone.getByRole('button', { name: 'Sign in' }).click();
      await phone.locator('#usage-chart svg rect').first().waitFor();
      expect(await phone.locator('#usage-chart svg rect').count()).toBe(4);
      expect(await axeViolations(phone)).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});
