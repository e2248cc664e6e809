/**
 * axe-core run inside the page under test, with the WCAG 2.0/2.1/2.2 A and AA rules. Injected through
 * `page.evaluate` (the DevTools protocol), so pages with a strict CSP need no exception for it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: string | undefined;

/** Each violated rule as `id (nodes): first target`; an empty list means no violation. */
export async function axeViolations(page: Page): Promise<string[]> {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
    const r = await (window as any).axe.run(document, {
      runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'],
      // Only violations are asserted on: axe then skips building a selector for every passing node.
      resultTypes: ['violations'],
    });
    return r.violations.map(
      (v: { id: string; nodes: Array<{ target: string[] }> }) =>
        `${v.id} (${v.nodes.length}): ${v.nodes[0]?.target.join(' ')}`,
    );
  });
}
