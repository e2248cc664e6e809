/**
 * The site's own bridge under the site API, for a site admin (the site key or a `site:admin` token) and
 * only for that site: what the household app's Set up view shows (docs/matter.md#household-app). The same
 * bridge object and actions as the admin API, plus the QR code drawn as SVG (the console's renderer) while
 * the window is open. Errors are the site API's `{message}`.
 */
import { type HearthRouter, HttpError, type RouteContext, routeParam } from '../../core/sdk.ts';
import { uqr } from '../console/qr.ts';
import type { LightingExports } from '../lighting/types.ts';
import type { BridgeView, MatterBridge } from './bridge.ts';
import type { Bridges } from './bridges.ts';
import { closeWindow, openWindow, removeFabric } from './routes.ts';

/** The admin API's bridge object and, while the window is open, `qrSvg`: the QR code as an SVG image. */
export type SiteBridgeView = BridgeView & { qrSvg: string | null };

export const siteView = (b: MatterBridge): SiteBridgeView => {
  const v = b.view();
  return { ...v, qrSvg: v.qrPayload ? uqr(v.qrPayload) : null };
};

export function mountMatterSiteRoutes(main: HearthRouter, lighting: LightingExports, bridges: Bridges): void {
  const admin = lighting.siteGuard('site:admin');
  const bridgeOf = (ctx: RouteContext): MatterBridge => {
    const site = (ctx.state.site as { siteId: string }).siteId;
    const b = bridges.get(site);
    if (!b) throw new HttpError(404, 'not_found', 'this site has no Matter bridge');
    ctx.set('Cache-Control', 'no-store');
    return b;
  };
  const path = '/api/site/:key/matter';

  main.get(path, admin, (ctx) => {
    ctx.body = siteView(bridgeOf(ctx));
  });
  main.post(`${path}/window`, admin, async (ctx) => {
    const b = bridgeOf(ctx);
    await openWindow(b);
    ctx.body = siteView(b);
  });
  main.delete(`${path}/window`, admin, async (ctx) => {
    const b = bridgeOf(ctx);
    await closeWindow(b);
    ctx.body = siteView(b);
  });
  main.delete(`${path}/fabrics/:fabricIndex`, admin, async (ctx) => {
    await removeFabric(bridgeOf(ctx), routeParam(ctx, 'fabricIndex'));
    ctx.status = 204;
  });
}
