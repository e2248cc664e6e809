/**
 * Every page of the operator console at a phone and at a tablet viewport, with every plugin loaded and
 * long real-world values in its tables (a URL-length redirect URI, a serial path, a long site name): the
 * page never scrolls sideways as a whole (WCAG 2.2 reflow; a wide table scrolls inside its own box) and
 * axe-core finds no violation.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

let t: TestHub;
let sim: ZnpSimulator;
let browser: Browser;

const LONG = 'a-rather-long-name-without-spaces-that-a-real-household-might-well-type-in';

beforeAll(async () => {
  sim = await startZnpSimulator({ blank: true });
  t = await startTestHub({
    plugins: ['console', 'lighting', 'mqtt-devices', 'hue', 'zigbee', 'auth', 'translation'],
    config: { plugins: { zigbee: { path: sim.path } } },
  });
  const site = await t.admin('POST', '/admin/sites', { name: `Holiday flat ${LONG}` });
  const made = [
    site,
    await t.admin('POST', '/admin/mqtt/credentials', {
      username: `sensor-${LONG}`.slice(0, 64),
      site: (site.body as { siteid: string }).siteid,
    }),
    await t.admin('POST', '/admin/clients', {
      client_name: `Kitchen tablet ${LONG}`,
      redirect_uris: [`https://kitchen.example/callback/${LONG}/${LONG}`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: '',
      agent: false,
      agent_description: '',
    }),
    await t.admin('POST', '/admin/users', {
      email: 'someone.with.a.rather.long.address@households-of-the-long-valley.example.org',
      name: 'Someone',
      password: 'a long pass phrase',
      role: 'user',
    }),
  ];
  for (const m of made) expect(m.status, JSON.stringify(m.body)).toBeLessThan(300);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await sim?.stop();
});

/** Opens a console page by its link and waits until the shell has rendered it (it focuses the title). */
async function open(page: Page, title: string): Promise<void> {
  await page.getByRole('link', { name: title, exact: true }).click();
  await page.locator('#page-title', { hasText: title }).waitFor();
  await page.waitForFunction(() => document.activeElement?.id === 'page-title');
}

/** How far the page as a whole scrolls sideways, and the widest element that makes it. */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    let widest = '';
    let most = window.innerWidth;
    for (const el of document.querySelectorAll('body *')) {
      const right = el.getBoundingClientRect().right;
      if (right > most) {
        most = right;
        widest = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}`;
      }
    }
    return { over, widest };
  });

describe.each([
  ['phone', { width: 390, height: 844 }],
  ['tablet', { width: 1024, height: 768 }],
])('every console page on a %s', (_name, viewport) => {
  it('reflows without sideways scrolling and has no axe violation', async () => {
    const page = await (await browser.newContext({ viewport })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.adminUrl}/admin/ui/`);
    await page.getByLabel('Admin key').fill(t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
    const titles = await page.locator('#pages a').allInnerTexts();
    expect(titles.length).toBeGreaterThan(12);
    const found: Record<string, unknown> = {};
    for (const title of titles) {
      await open(page, title);
      const s = await sideways(page);
      if (s.over > 0) found[title] = s;
      const violations = await axeViolations(page);
      if (violations.length > 0) found[`${title} (axe)`] = violations;
    }
    expect(found).toEqual({});
    await page.context().close();
  }, 180_000);
});
