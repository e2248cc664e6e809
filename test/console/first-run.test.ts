/**
 * First run in a real browser (chromium, a desktop and a phone viewport, axe clean): a fresh hub (its admin
 * key generated, never typed) is claimed through "Set up this hub", its owner signs out and in with the
 * password, a second visitor is refused once it is claimed, the household's start page leads a browser back
 * to its link; the setup-code setting and a restored claimed backup keep the claim closed.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;
const PASSWORD = 'correct horse battery';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const post = (t: TestHub, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.adminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: t.adminUrl, ...headers },
    body: JSON.stringify(body),
  });

describe.each(VIEWPORTS)('first run at a %s viewport', (_name, viewport) => {
  let t: TestHub;
  let owner: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startTestHub({ plugins: ['console', 'lighting'], adminKey: null });
    // The owner's phone knows where it is (a loopback page is a secure context, so it may ask).
    owner = await browser.newContext({
      viewport,
      geolocation: { latitude: 60.1699, longitude: 24.9384 },
      permissions: ['geolocation'],
    });
    page = await owner.newPage();
  }, 30_000);
  afterAll(async () => {
    await owner?.close();
    await t?.stop();
  });

  it('leads / on the console port to "Set up this hub", with no admin key asked', async () => {
    const res = await page.goto(`${t.adminUrl}/`);
    expect(page.url()).toBe(`${t.adminUrl}/admin/ui/`);
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Set up this hub' }).waitFor();
    expect(await page.getByLabel('Admin key').isVisible()).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('claims the hub through the form: the owner password is set and the steps open', async () => {
    await page.getByLabel('Choose the owner password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill('something else');
    await page.getByRole('button', { name: 'Set up this hub' }).click();
    await page.locator('#say', { hasText: 'differ' }).waitFor();
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up this hub' }).click();
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
    await page.getByRole('heading', { name: 'Set up', exact: true }).waitFor();
    expect(page.url()).toContain('#setup');
    expect(await axeViolations(page)).toEqual([]);
    // The claim is logged with the address it came from; the password never is.
    const claimed = t.logs.find((l) => l.msg === 'hub claimed: the owner password is set');
    expect(claimed?.from).toMatch(/127\.0\.0\.1/);
    expect(JSON.stringify(t.logs)).not.toContain(PASSWORD);
    // The owner's session calls the admin API; the generated admin key keeps working for automation.
    const owned = (await t.admin('GET', '/admin/console/owner')).body as Record<string, unknown>;
    expect(owned).toMatchObject({ claimed: true, password: true, setupCode: null });
  });

  it('does the steps through the admin API: names the home and its place, skips one, shows the household QR code', async () => {
    await page.getByLabel('Name of the home').fill('Our flat');
    // The browser's location fills the place; typing one works as well and is what is saved here.
    await page.getByRole('button', { name: 'Use this device’s location' }).click();
    await expect.poll(() => page.getByLabel('Latitude (−90 to 90)').inputValue()).toBe('60.1699');
    expect(await page.getByLabel('Longitude (−180 to 180)').inputValue()).toBe('24.9384');
    await page.getByLabel('Latitude (−90 to 90)').fill('60.17');
    await page.getByLabel('Longitude (−180 to 180)').fill('24.94');
    await page.getByRole('button', { name: 'Save the home' }).click();
    await page.locator('#say', { hasText: 'Saved: Our flat.' }).waitFor();
    const [site] = (await t.admin('GET', '/admin/sites')).body as Array<{ siteid: string; name: string }>;
    expect(site?.name).toBe('Our flat');
    expect((await t.admin('GET', `/admin/sites/${site?.siteid}/location`)).body).toEqual({
      latitude: 60.17,
      longitude: 24.94,
    });
    await page.getByRole('heading', { name: 'Name the home (done)' }).waitFor();
    // Skipped, and still there to come back to.
    await page.getByRole('button', { name: 'Skip: Find devices' }).click();
    await page.getByRole('heading', { name: 'Find devices (skipped)' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('step-invite');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Show the household link as a QR code' }).click();
    await page.getByRole('img', { name: 'QR code of the household link of Our flat' }).waitFor();
    const link = await page.locator('.secret').innerText();
    expect(link).toMatch(new RegExp(`^${t.url}/site/`));
    expect((await fetch(link)).status).toBe(200);
    // No Matter plugin here: no assistants step.
    expect(await page.getByRole('heading', { name: /Turn on the assistants/ }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // Reachable later: the page opened again remembers what was done and skipped.
    await page.reload();
    await page.getByRole('heading', { name: 'Find devices (skipped)' }).waitFor();
  });

  it('refuses a second visitor once claimed: the start page asks for the password, a claim gets 409', async () => {
    const other = await browser.newContext({ viewport });
    const p2 = await other.newPage();
    await p2.goto(`${t.adminUrl}/admin/ui/`);
    await p2.getByLabel('Owner password', { exact: true }).waitFor();
    expect(await p2.getByRole('heading', { name: 'Set up this hub' }).isVisible()).toBe(false);
    expect(await axeViolations(p2)).toEqual([]);
    await other.close();
    const res = await post(t, '/admin/ui/claim', { password: 'another password' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toMatch(/set up already/);
  });

  it('signs out and in again with the owner password; a wrong password is refused', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Owner password', { exact: true }).waitFor();
    await page.getByLabel('Owner password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('#say', { hasText: 'The password is wrong' }).waitFor();
    await page.getByLabel('Owner password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
    const cookie = (await owner.cookies()).find((c) => c.name === 'hearth_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin/ui' });
  });

  it('keeps the admin key sign-in for whoever holds it', async () => {
    const other = await browser.newContext({ viewport });
    const p2 = await other.newPage();
    await p2.goto(`${t.adminUrl}/admin/ui/`);
    await p2.getByRole('button', { name: 'Sign in with the admin key instead' }).click();
    await p2.getByLabel('Admin key').fill(t.adminKey);
    await p2.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p2.getByRole('navigation', { name: 'Console pages' }).waitFor();
    await other.close();
  });

  it('shows a new admin key once to the owner, whose password session goes on', async () => {
    await page.getByRole('link', { name: 'Status' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Rotate the admin key' }).click();
    await page.getByText('Keep it for scripts and the command line').waitFor();
    const key = await page.locator('#new-admin-key .secret').innerText();
    expect(key).not.toBe(t.adminKey);
    const verify = (k: string) =>
      fetch(`${t.adminUrl}/admin/auth/verify`, { method: 'POST', headers: { authorization: `Bearer ${k}` } });
    expect((await verify(key)).status).toBe(200);
    expect((await verify(t.adminKey)).status).toBe(401);
    // The owner's session does not hang on the admin key.
    await page.getByRole('link', { name: 'Set up' }).click();
    await page.getByRole('heading', { name: /Name the home/ }).waitFor();
  });

  it('stays claimed after a restart', async () => {
    t = await t.restart();
    const start = await (await fetch(`${t.adminUrl}/admin/ui/start`)).json();
    expect(start).toEqual({ claim: null, password: true });
  });
});

describe('the household start page (http://<hub>:8080/)', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ plugins: ['console', 'lighting'] });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it.each(VIEWPORTS)(
    'at a %s viewport says how to get the link, then leads back to the link opened before',
    async (_n, viewport) => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const res = await page.goto(`${t.url}/`);
      expect(res?.status()).toBe(200);
      await page.getByText('ask the person who set up the hub').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      // The household link, as the console shows it (a new key for the site).
      const [site] = (await t.admin('GET', '/admin/sites')).body as Array<{ siteid: string }>;
      const link = (
        (await t.admin('POST', `/admin/sites/${site?.siteid}/rotate-key`)).body as { url: string }
      ).url;
      await page.goto(link);
      await page.locator('#site-name').waitFor();
      await page.goto(`${t.url}/`);
      await page.waitForURL(link);
      // A link replaced since is forgotten: the start page stays and says how to get the new one.
      await t.admin('POST', `/admin/sites/${site?.siteid}/rotate-key`);
      await page.goto(`${t.url}/`);
      await page.getByText('ask the person who set up the hub').waitFor();
      expect(await page.evaluate(() => localStorage.getItem('hearth.household'))).toBeNull();
      await context.close();
    },
  );
});

describe('the setup code and the claim rules', () => {
  it('with claim.setupCode on, asks for the code the first start printed before the form', async () => {
    const t = await startTestHub({
      plugins: ['console'],
      adminKey: null,
      config: { plugins: { console: { claim: { setupCode: true } } } },
    });
    try {
      const line = t.printed.find((l) => l.startsWith('Setup code'));
      const code = /: ([0-9A-Z]{4}-[0-9A-Z]{4})$/.exec(line ?? '')?.[1] as string;
      expect(code).toBeTruthy();
      // `hearth status` reads the same code through the admin API.
      expect(((await t.admin('GET', '/admin/console/owner')).body as { setupCode: string }).setupCode).toBe(
        code,
      );
      // Without the code no claim is taken, whatever the browser sends.
      expect((await post(t, '/admin/ui/claim', { password: PASSWORD })).status).toBe(403);
      const context = await browser.newContext({ viewport: VIEWPORTS[1][1] });
      const page = await context.newPage();
      await page.goto(`${t.adminUrl}/admin/ui/`);
      await page.getByLabel('Setup code').fill('AAAA-AAAA');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('#say', { hasText: 'not the setup code' }).waitFor();
      expect(await page.getByLabel('Choose the owner password').isVisible()).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('Setup code').fill(code.toLowerCase());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Choose the owner password').fill(PASSWORD);
      await page.getByLabel('The same password again').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set up this hub' }).click();
      await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
      await context.close();
      // The code is gone with the claim.
      expect(
        ((await t.admin('GET', '/admin/console/owner')).body as { setupCode: unknown }).setupCode,
      ).toBeNull();
    } finally {
      await t.stop();
    }
  }, 30_000);

  it('never offers the claim on a hub provisioned with HEARTH_ADMIN_KEY (or an older data directory)', async () => {
    const t = await startTestHub({ plugins: ['console'] });
    try {
      expect(await (await fetch(`${t.adminUrl}/admin/ui/start`)).json()).toEqual({
        claim: null,
        password: false,
      });
      expect((await post(t, '/admin/ui/claim', { password: PASSWORD })).status).toBe(409);
      expect(t.printed.some((l) => l.startsWith('Setup code'))).toBe(false);
    } finally {
      await t.stop();
    }
  });

  it('restoring a claimed backup on a fresh hub closes its claim', async () => {
    const claimed = await startTestHub({ plugins: ['console'], adminKey: null });
    const fresh = await startTestHub({ plugins: ['console'], adminKey: null });
    try {
      expect((await post(claimed, '/admin/ui/claim', { password: PASSWORD })).status).toBe(201);
      const backup = await fetch(`${claimed.adminUrl}/admin/backup`, {
        headers: { authorization: `Bearer ${claimed.adminKey}` },
      });
      expect(backup.status).toBe(200);
      expect((await (await fetch(`${fresh.adminUrl}/admin/ui/start`)).json()).claim).toBe('open');
      const restored = await fetch(`${fresh.adminUrl}/admin/restore`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fresh.adminKey}`, 'content-type': 'application/gzip' },
        body: new Uint8Array(await backup.arrayBuffer()),
      });
      expect(restored.status).toBe(200);
      expect(await (await fetch(`${fresh.adminUrl}/admin/ui/start`)).json()).toEqual({
        claim: null,
        password: true,
      });
      // The restored owner password signs in.
      expect((await post(fresh, '/admin/ui/session', { password: PASSWORD })).status).toBe(200);
    } finally {
      await claimed.stop();
      await fresh.stop();
    }
  }, 30_000);
});
