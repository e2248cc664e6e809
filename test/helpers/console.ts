/** What the operator-console browser tests share: the viewports every flow runs at, and signing in. */
import type { Page } from 'playwright-core';

/** The tablet and phone viewports every console flow runs at. */
export const VIEWPORTS = [
  ['tablet', { width: 1024, height: 768 }],
  ['phone', { width: 390, height: 844 }],
] as const;

/** Opens the console and signs in with the admin key; resolves once the page list is shown. */
export async function signInToConsole(page: Page, adminUrl: string, adminKey: string): Promise<void> {
  await page.goto(`${adminUrl}/admin/ui/`);
  await page.getByLabel('Admin key').fill(adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
}

/**
 * Renders the console page `hash` (such as `#bridges`) afresh in a signed-in console, with the live region
 * emptied: the page's module renders from what the API holds now, with no form, list or message left from
 * before, as after a new sign-in, but without a new renderer, document and axe-core injection for every
 * test. The shell renders a page on each change of the location's hash, so it goes through one that names
 * no page (and so renders nothing) first.
 */
export async function renderAfresh(page: Page, hash: string): Promise<void> {
  await page.evaluate(async (target) => {
    (document.getElementById('say') as HTMLElement).textContent = '';
    for (const next of ['#afresh', target]) {
      // The shell's own handler runs first (registered earlier), so the old page is gone once this fires.
      const changed = new Promise((r) => addEventListener('hashchange', r, { once: true }));
      location.hash = next;
      await changed;
    }
  }, hash);
}
