/** What the site routes share, and the two helpers every route uses. */
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { HttpError, requestBody, routeParam } from '../../../core/sdk.ts';
import type { AccessControl, SiteAccess } from '../access.ts';
import type { Catalog } from '../catalog.ts';
import type { DriverHost } from '../drivers-host.ts';
import type { LightControl } from '../light-control.ts';
import type { SensorReadingsStore } from '../readings/readings.ts';
import type { SceneGroupCatalog } from '../scene-group-catalog.ts';
import type { SensorCatalog } from '../sensor-catalog.ts';
import type { SiteActions } from '../site-actions.ts';
import type { Sites } from '../sites.ts';

export interface SiteDeps {
  sites: Sites;
  catalog: Catalog;
  sceneGroups: SceneGroupCatalog;
  sensorCatalog: SensorCatalog;
  control: LightControl;
  actions: SiteActions;
  /** Each sensor's last readings and when it was last heard from. */
  readings: SensorReadingsStore;
  drivers: DriverHost;
  access: AccessControl;
  /** Sender-id base for vendors whose driver does not provide one (plugin config). */
  subdefBase: string;
  /** Bound on driver calls made for a request (pairing waits its own duration on top). */
  commandTimeoutMs: number;
  log: Logger;
}

export function siteOf(ctx: Context): string {
  return (ctx.state.site as SiteAccess).siteId;
}

/** Whether the request carries body bytes (RFC 9112 §6.3: a Transfer-Encoding, or a Content-Length above 0). */
function hasBody(ctx: Context): boolean {
  const { 'transfer-encoding': chunked, 'content-length': length } = ctx.req.headers;
  return chunked !== undefined || (length !== undefined && Number(length) > 0);
}

/**
 * spec: requests carry `Content-Type: application/json`; anything else, a missing type included, is 415
 * (RFC 9110 §15.5.16); a request with no body at all is 400. `request.type` is the media type without
 * parameters; compared directly (type-is on every request is measurable here).
 */
export function jsonBody(ctx: Context): unknown {
  if (!hasBody(ctx)) {
    throw new HttpError(400, 'invalid_request', 'a JSON body is required (Content-Type: application/json)');
  }
  const type = ctx.request.type.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(
      415,
      'unsupported_media_type',
      type ? 'Content-Type must be application/json' : 'Content-Type: application/json is missing',
    );
  }
  return requestBody(ctx);
}

export const param = routeParam;
