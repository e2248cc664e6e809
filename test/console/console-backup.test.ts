/**
 * Backups from the operator console, in chromium: the download is a gzip tar the restore route takes;
 * a file that is no backup is refused with the API's message and nothing is lost; restoring the
 * downloaded file brings back the site and light changed since, and ends the console session (the page
 * asks for the admin key again, as plugins/console/README.md says). At a tablet and at a phone viewport.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { VIEWPORTS } from '../helpers/console.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin } from '../lighting/harness.ts';
import { testDriverType } from '../lighting/test-driver.ts';

// Each viewport gets a hub of its own: a restore replaces the hub's data and ends every session.
describe.each(VIEWPORTS)('at a %s viewport', (_name, viewport) => {
  let t: TestHub;
  let lighting: LightingExports;
  let browser: Browser;
  let page: Page;
  let site: { siteid: string; sitekey: string };
  let backupFile = '';
  /** What the page's confirm() gets answered; every dialog's text is kept. */
  let answer = true;
  const dialogs: string[] = [];

  const siteApi = async (path: string, method = 'GET', body?: unknown) => {
    const res = await fetch(`${t.url}/api/site/${site.sitekey}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected field by field
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const siteNames = async () =>
    ((await t.admin('GET', '/admin/sites')).body as Array<{ name: string }>).map((s) => s.name).sort();
  const lightNames = async () =>
    ((await siteApi('/light')).body as Array<{ name: string }>).map((l) => l.name).sort();

  async function signIn(): Promise<void> {
    await page.getByLabel('Admin key').fill(t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
  }

  beforeAll(async () => {
    t = await startTestHub({
      plugins: ['console', 'lighting'],
      extraPlugins: [probePlugin((l) => (lighting = l))],
    });
    site = (await t.admin('POST', '/admin/sites', { name: 'Cottage' })).body as typeof site;
    lighting.registerDriverType('test', testDriverType().factory);
    await lighting.addDriver({ id: 'radio', type: 'test', site: site.siteid });
    expect(
      (await siteApi('/light', 'POST', { name: 'Porch', type: 'dimmable', vendor: 'test', testid: 'p' }))
        .status,
    ).toBe(201);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport, acceptDownloads: true });
    page.setDefaultTimeout(15_000);
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
    await page.goto(`${t.adminUrl}/admin/ui/#backups`);
    await signIn();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  describe('backups in the console', () => {
    it('downloads a gzip tar with the manifest and the lighting data', async () => {
      await page.getByRole('link', { name: 'Download a backup', exact: true }).waitFor();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download a backup', exact: true }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^hearth-backup-\d{4}-\d{2}-\d{2}\.tar\.gz$/);
      backupFile = await download.path();
      const bytes = await readFile(backupFile);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      // A POSIX tar inside: "ustar" at offset 257 of the first header.
      expect(gunzipSync(bytes).subarray(257, 262).toString('latin1')).toBe('ustar');
      const entries: string[] = [];
      await tar.t({ file: backupFile, onReadEntry: (e) => void entries.push(e.path.replace(/^\.\//, '')) });
      expect(entries).toEqual(expect.arrayContaining(['hearth-backup.json', 'lighting.config.json']));
      expect(await axeViolations(page)).toEqual([]);
    });

    it('refuses a file that is no backup with the API’s message; nothing is lost and the session stays', async () => {
      // Changes after the backup: the restore below must undo them.
      await t.admin('PATCH', `/admin/sites/${site.siteid}`, { name: 'Cottage renamed' });
      await t.admin('POST', '/admin/sites', { name: 'Made later' });
      const porch = (await siteApi('/light')).body[0] as { _id: string };
      expect((await siteApi(`/light/${porch._id}`, 'DELETE')).status).toBe(204);
      expect(await lightNames()).toEqual([]);

      const junk = Buffer.from('these are my notes, not a backup\n'.repeat(20));
      const refused = await fetch(`${t.adminUrl}/admin/restore`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/gzip' },
        body: junk,
      });
      expect(refused.status).toBe(400);
      const { message } = (await refused.json()) as { message: string };
      expect(message).toMatch(/backup/);

      await page.getByLabel('Backup archive (.tar.gz)').setInputFiles({
        name: 'notes.tar.gz',
        mimeType: 'application/gzip',
        buffer: junk,
      });
      // Saying no to the question sends nothing.
      answer = false;
      await page.getByRole('button', { name: 'Restore' }).click();
      await expect
        .poll(() => dialogs.at(-1))
        .toMatch(/^Replace every setting with the backup notes\.tar\.gz\?/);
      answer = true;
      await page.getByRole('button', { name: 'Restore' }).click();
      await page.locator('#say.bad', { hasText: `Restore failed: ${message}` }).waitFor();
      expect(await siteNames()).toEqual(['Cottage renamed', 'Home', 'Made later']);
      expect(await lightNames()).toEqual([]);
      // Still signed in: the page's calls keep working.
      expect(await page.evaluate(async () => (await fetch('/admin/ui/api/sites')).status)).toBe(200);
      expect(await page.getByLabel('Admin key').isVisible()).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('restores the downloaded file: the data is back and the console asks for the admin key again', async () => {
      await page.getByLabel('Backup archive (.tar.gz)').setInputFiles(backupFile);
      await page.getByRole('button', { name: 'Restore' }).click();
      await page
        .locator('#say', { hasText: /^Restored \d+ files\. Sign in again with the admin key\.$/ })
        .waitFor();
      await page.getByLabel('Admin key').waitFor({ state: 'visible' });
      expect(await page.getByRole('navigation', { name: 'Console pages' }).isVisible()).toBe(false);
      expect(await axeViolations(page)).toEqual([]);

      expect(await siteNames()).toEqual(['Cottage', 'Home']);
      expect(await lightNames()).toEqual(['Porch']);
      // The old session is gone for good, not only hidden.
      expect(await page.evaluate(async () => (await fetch('/admin/ui/api/sites')).status)).toBe(401);
      // The restore through the console did not sit out the shutdown grace waiting for its own proxy call.
      expect(t.logs.filter((l) => String(l.msg).includes('requests still running'))).toEqual([]);

      await signIn();
      await page.getByRole('link', { name: 'Sites', exact: true }).click();
      await page.locator(`[data-site="${site.siteid}"]`, { hasText: 'Cottage' }).waitFor();
      expect(await page.locator('[data-site]').count()).toBe(2);
      expect(await axeViolations(page)).toEqual([]);
    });
  });
});
