/**
 * Admin routes (README "Admin API"): the bridges with their codes while a window is open, opening a
 * commissioning window, removing a fabric. Errors: `{error, message}`. The site API's routes
 * (site-routes.ts) share the actions below.
 */
import { type HearthRouter, HttpError, routeParam } from '../../core/sdk.ts';
import type { MatterBridge } from './bridge.ts';
import type { Bridges } from './bridges.ts';

export async function openWindow(b: MatterBridge): Promise<void> {
  try {
    await b.openWindow();
  } catch (err) {
    // matter.js refuses while a controller is in the middle of commissioning (its fail-safe is armed).
    throw new HttpError(
      409,
      'commissioning_busy',
      `the window cannot be opened now: ${(err as Error).message}`,
    );
  }
}

export const closeWindow = (b: MatterBridge): Promise<void> => b.closeWindow();

/** Removes fabric `raw` (the path segment): 400 for a malformed index, 404 for none such. */
export async function removeFabric(b: MatterBridge, raw: string): Promise<void> {
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 254)
    throw new HttpError(400, 'invalid_request', 'fabricIndex must be an integer from 1 to 254');
  if (!(await b.removeFabric(Number(raw))))
    throw new HttpError(404, 'not_found', `no fabric ${raw} on the bridge of site ${b.siteId}`);
}

export function mountMatterRoutes(r: HearthRouter, bridges: Bridges): void {
  const bridgeOf = (site: string) => {
    const b = bridges.get(site);
    if (!b) throw new HttpError(404, 'not_found', `no Matter bridge for site ${site}`);
    return b;
  };

  r.get('/admin/matter', (ctx) => {
    ctx.body = { bridges: bridges.views() };
  });

  r.post('/admin/matter/:site/window', async (ctx) => {
    const b = bridgeOf(routeParam(ctx, 'site'));
    await openWindow(b);
    ctx.body = b.view();
  });

  r.delete('/admin/matter/:site/window', async (ctx) => {
    const b = bridgeOf(routeParam(ctx, 'site'));
    await closeWindow(b);
    ctx.body = b.view();
  });

  r.delete('/admin/matter/:site/fabrics/:fabricIndex', async (ctx) => {
    const b = bridgeOf(routeParam(ctx, 'site'));
    await removeFabric(b, routeParam(ctx, 'fabricIndex'));
    ctx.status = 204;
  });
}
