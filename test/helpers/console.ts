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
