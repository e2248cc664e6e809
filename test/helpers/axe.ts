/**
 * axe-core run inside the page under test, with the WCAG 2.0/2.1/2.2 A and AA rules.
 *
 * axe-core (about 560 kB) is loaded into each page once, as a script from the page's own origin that the
 * test answers itself (the hub never sees the request): chromium compiles a loaded script in about half the
 * CPU time a DevTools `evaluate` of the same source takes, and `script-src 'self'` (the console's CSP)
 * allows it (a page a service worker controls fetches it through its worker, whose requests the
 * context's routes answer). A page whose CSP refuses it gets the source through `page.evaluate` (the
 * DevTools protocol, which no CSP restricts), as before.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page, Route } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: string | undefined;

/** The path axe-core is served at on the page's origin; answered by the route below, never by the hub. */
const AXE_PATH = '/__test-only/axe-core.js';

/** Puts `window.axe` into the page, unless it is there already. */
async function inject(page: Page): Promise<void> {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const state = await page.evaluate(() => ({
    loaded: 'axe' in window,
    worker: Boolean(navigator.serviceWorker?.controller),
  }));
  if (state.loaded) return;
  const origin = new URL(page.url()).origin;
  if (origin.startsWith('http')) {
    const url = `${origin}${AXE_PATH}`;
    const answer = (route: Route) =>
      route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: source as string });
    // A service worker's own fetches are seen by the context's routes, not the page's.
    const router = state.worker ? page.context() : page;
    await router.route(url, answer);
    try {
      await page.addScriptTag({ url });
      return;
    } catch {
      // Refused (the page's CSP, or a worker that did not pass it on): the DevTools protocol below is not.
    } finally {
      // Routing turns chromium's HTTP cache off: only while the script loads.
      await router.unroute(url, answer);
    }
  }
  await page.evaluate(source);
}

/** Each violated rule as `id (nodes): first target`; an empty list means no violation. */
export async function axeViolations(page: Page): Promise<string[]> {
  await inject(page);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
    const r = await (window as any).axe.run(document, {
      runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'],
      // Only violations are asserted on: axe then skips building selectors for every passing node.
      resultTypes: ['violations'],
    });
    return r.violations.map(
      (v: { id: string; nodes: Array<{ target: string[] }> }) =>
        `${v.id} (${v.nodes.length}): ${v.nodes[0]?.target.join(' ')}`,
    );
  });
}
