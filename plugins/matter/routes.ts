/**
 * Admin routes (README "Admin API"): the bridges with their codes while a window is open, opening a
 * commissioning window, removing a fabric. Errors: `{error, message}`.
 */
import { type HearthRouter, HttpError, routeParam } from '../../core/sdk.ts';
import type { Bridges } from './bridges.ts';

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
    ctx.body = b.view();
  });

  r.delete('/admin/matter/:site/window', async (ctx) => {
    const b = bridgeOf(routeParam(ctx, 'site'));
    await b.closeWindow();
    ctx.body = b.view();
  });

  r.delete('/admin/matter/:site/fabrics/:fabricIndex', async (ctx) => {
    const b = bridgeOf(routeParam(ctx, 'site'));
    const raw = routeParam(ctx, 'fabricIndex');
    if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 254)
      throw new HttpError(400, 'invalid_request', 'fabricIndex must be an integer from 1 to 254');
    if (!(await b.removeFabric(Number(raw))))
      throw new HttpError(404, 'not_found', `no fabric ${raw} on the bridge of site ${b.siteId}`);
    ctx.status = 204;
  });
}
