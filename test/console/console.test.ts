/**
 * The operator console in a real browser (Debian chromium via playwright-core): sign-in once per session
 * with an HttpOnly SameSite=Strict cookie, CSRF-safe calls, a strict CSP with no third-party origin, pages
 * contributed by plugins (the lighting plugin's Sites with a QR code), backups, and zero axe-core violations.
 */
import { request as httpRequest } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { VIEWPORTS } from '../helpers/console.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

describe.each(VIEWPORTS)('at a %s viewport', (_name, viewport) => {
  let t: TestHub;
  let browser: Browser;
  let page: Page;
  const transferred: number[] = [];
  const foreign: string[] = [];

  beforeAll(async () => {
    t = await startTestHub({ plugins: ['console', 'lighting', 'mqtt-devices', 'translation'] });
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport });
    page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    page.on('request', (r) => {
      if (!r.url().startsWith(t.adminUrl) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    page.on('response', async (r) => {
      const size = Number(
        r.headers()['content-length'] ?? (await r.body().catch(() => Buffer.alloc(0))).length,
      );
      transferred.push(size);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  describe('operator console at /admin/ui/', () => {
    it('serves the shell without the key, under a strict CSP, and asks for the admin key', async () => {
      const res = await page.goto(`${t.adminUrl}/admin/ui/`);
      expect(res?.status()).toBe(200);
      const csp = res?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      await page.getByLabel('Admin key').waitFor();
      console.log(
        `console first load (sign-in screen): ${transferred.reduce((a, b) => a + b, 0)} bytes in ${transferred.length} responses`,
      );
      expect(await axeViolations(page)).toEqual([]);
      // The rest of /admin/ still needs the key.
      expect((await fetch(`${t.adminUrl}/admin/sites`)).status).toBe(401);
      expect((await fetch(`${t.adminUrl}/admin/ui/api/sites`)).status).toBe(401);
    });

    it('refuses a wrong key, then signs in once: an HttpOnly SameSite=Strict cookie, kept across reloads', async () => {
      await page.getByLabel('Admin key').fill('wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#say', { hasText: 'wrong' }).waitFor();
      // The same refusal again is announced again: the live region is emptied, then set to the same words.
      const message = await page.locator('#say').innerText();
      await page.evaluate(() => {
        const region = document.getElementById('say') as HTMLElement & { seen?: string[] };
        region.seen = [];
        new MutationObserver(() => region.seen?.push(region.textContent ?? '')).observe(region, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      await page.getByLabel('Admin key').fill('wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForFunction((text) => {
        const seen = (document.getElementById('say') as HTMLElement & { seen?: string[] }).seen ?? [];
        return seen.length >= 2 && seen.at(-1) === text;
      }, message);
      expect(
        await page.evaluate(() => (document.getElementById('say') as HTMLElement & { seen?: string[] }).seen),
      ).toEqual(['', message]);
      await page.getByLabel('Admin key').fill(t.adminKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
      const cookie = (await page.context().cookies()).find((c) => c.name === 'hearth_console')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin/ui' });
      expect(cookie.value).not.toContain(t.adminKey);
      const before = transferred.length;
      await page.reload();
      await page.getByRole('link', { name: 'Sites', exact: true }).waitFor();
      await page.locator('#page-body', { hasText: 'Plugins' }).waitFor();
      const signedIn = transferred.slice(before);
      console.log(
        `console load when signed in (shell, page list, status page): ${signedIn.reduce((a, b) => a + b, 0)} bytes in ${signedIn.length} responses`,
      );
      expect(await page.getByLabel('Admin key').isVisible()).toBe(false);
    });

    it('shows the pages plugins contributed, in order', async () => {
      expect(await page.locator('#pages a').allTextContents()).toEqual([
        'Status',
        'Metrics',
        'Sites',
        'Drivers and devices',
        'MQTT credentials',
        'MQTT devices',
        'Translation keys',
        'Log',
        'Backups',
        'Set up',
      ]);
      await page.locator('#page-body', { hasText: 'Plugins' }).waitFor();
      expect(await page.locator('#page-body').textContent()).toContain('lighting');
      expect(await axeViolations(page)).toEqual([]);
    });

    it('creates a site and shows its link as a QR code; rotates the key; all through the admin API', async () => {
      await page.getByRole('link', { name: 'Sites', exact: true }).click();
      await page.getByLabel('Name', { exact: true }).fill('Cabin');
      await page.getByRole('button', { name: 'Create' }).click();
      const qr = page.getByRole('img', { name: 'QR code of the link to site Cabin' });
      await qr.waitFor();
      const link = await page.locator('#site-link a').getAttribute('href');
      expect(link).toMatch(/\/site\/[A-Za-z0-9_-]{24}$/);
      expect((await fetch(link!)).status).toBe(200);
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml,/);
      expect(
        ((await t.admin('GET', '/admin/sites')).body as Array<{ name: string }>).map((s) => s.name),
      ).toContain('Cabin');
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Rotate the key of Cabin' }).click();
      await page.locator('#site-link h3', { hasText: 'New key: Cabin' }).waitFor();
      const rotated = await page.locator('#site-link a').getAttribute('href');
      expect(rotated).not.toBe(link);
      expect((await fetch(link!)).status).toBe(404);
    });

    it('refuses changes without the CSRF token or from another origin, even with the cookie', async () => {
      const status = await page.evaluate(async () => {
        const noToken = await fetch('/admin/ui/api/sites', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Evil' }),
        });
        const read = await fetch('/admin/ui/api/sites');
        return [noToken.status, read.status];
      });
      expect(status).toEqual([403, 200]);
      const cookie = (await page.context().cookies()).find((c) => c.name === 'hearth_console')!;
      const csrf = await page.evaluate(async () => (await (await fetch('/admin/ui/session')).json()).csrf);
      // node:http, not fetch: fetch sets its own Origin.
      const foreignOrigin = await new Promise<{ status: number }>((resolve, reject) => {
        const body = JSON.stringify({ name: 'Evil' });
        const req = httpRequest(
          `${t.adminUrl}/admin/ui/api/sites`,
          {
            method: 'POST',
            headers: {
              cookie: `hearth_console=${cookie.value}`,
              'x-hearth-csrf': csrf,
              origin: 'http://evil.example',
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0 });
          },
        );
        req.once('error', reject);
        req.end(body);
      });
      expect(foreignOrigin.status).toBe(403);
      const names = ((await t.admin('GET', '/admin/sites')).body as Array<{ name: string }>).map(
        (s) => s.name,
      );
      expect(names).not.toContain('Evil');
    });

    it('creates an MQTT credential for a site and shows its password once', async () => {
      await page.getByRole('link', { name: 'MQTT credentials', exact: true }).click();
      await page.getByLabel('User name').fill('hall-switch');
      await page.getByLabel('Site', { exact: true }).selectOption({ label: 'Cabin' });
      await page.getByRole('button', { name: 'Create' }).click();
      await page.locator('tr[data-username="hall-switch"]').waitFor();
      expect(await page.locator('#new-credential .secret').textContent()).toMatch(/.{16,}/);
      const list = (await t.admin('GET', '/admin/mqtt/credentials')).body as Array<{ username: string }>;
      expect(list.map((c) => c.username)).toContain('hall-switch');
      expect(await axeViolations(page)).toEqual([]);
    });

    it("creates a translation developer key through the page's own API (/v2/admin on the main listener) and shows usage", async () => {
      await page.getByRole('link', { name: 'Translation keys', exact: true }).click();
      await page.getByLabel('Label').fill('Announcements');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.locator('#new-key .secret').waitFor();
      const key = (await page.locator('#new-key .secret').textContent()) ?? '';
      expect(key.length).toBeGreaterThan(10);
      await page.locator('tr[data-key] td', { hasText: 'Announcements' }).first().waitFor();
      await page.getByRole('table', { name: /Characters translated/ }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
    });

    it('downloads a backup through the session', async () => {
      await page.getByRole('link', { name: 'Backups', exact: true }).click();
      const href = await page
        .getByRole('link', { name: 'Download a backup', exact: true })
        .getAttribute('href');
      const gz = await page.evaluate(async (h) => {
        const r = await fetch(h);
        const b = new Uint8Array(await r.arrayBuffer());
        return [r.status, r.headers.get('content-type'), b[0], b[1]];
      }, href!);
      expect(gz).toEqual([200, 'application/gzip', 0x1f, 0x8b]);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('signs out: the cookie no longer opens the API', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Admin key').waitFor();
      expect(await page.evaluate(async () => (await fetch('/admin/ui/api/sites')).status)).toBe(401);
      expect(foreign).toEqual([]);
    });
  });
});

describe('without the console plugin', () => {
  it('/admin/ui serves nothing: the guard lets the path through, but no route answers it', async () => {
    const bare = await startTestHub({ plugins: ['lighting'] });
    try {
      for (const p of ['/admin/ui/', '/admin/ui/api/sites', '/admin/ui/session']) {
        expect((await fetch(`${bare.adminUrl}${p}`)).status, p).toBe(404);
      }
      expect((await fetch(`${bare.adminUrl}/admin/sites`)).status).toBe(401);
    } finally {
      await bare.stop();
    }
  });
});
