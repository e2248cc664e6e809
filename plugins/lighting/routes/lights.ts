/** Lights: the two documented calls (spec §Endpoints) and create/modify/delete (docs/lighting.md#the-designed-methods, 2.0 paths). */
import type { DirectRoute, HearthRouter, RouterOptions } from '../../../core/sdk.ts';
import type { LightLevel } from '../../../drivers/lighting/index.ts';
import { withDeviceFacts } from '../device-facts.ts';
import { parseLightCreate, parseLightModify } from '../domain/bodies.ts';
import { asObject, str } from '../domain/check.ts';
import { type ColourCommand, hasColourFields, parseColour } from '../domain/colour.ts';
import { parseLevel, sameLevel } from '../domain/level.ts';
import type { LightStateAnswer } from '../types.ts';
import { jsonBody, param, type SiteDeps, siteOf } from './context.ts';
import { acceptsJsonBody, readJsonBody } from './direct-body.ts';

/**
 * spec PUT /light/state, shared with the `setLightState` export: normalised, recorded as desired, coalesced
 * per light; answers once handed to the driver. `'on'`: on at the last non-zero level (as a group toggle).
 */
export async function setLightState(
  d: SiteDeps,
  siteId: string,
  id: string,
  /** A `LightStateRequest` from another plugin, or a request body: colour fields are checked here. */
  requested: ({ on: boolean; bri?: number } & object) | 'on',
): Promise<LightStateAnswer> {
  const light = d.catalog.light(siteId, id);
  let wanted: LightLevel;
  let extra: ColourCommand | undefined;
  if (requested === 'on' || (requested.bri === undefined && requested.on))
    wanted = { on: true, bri: d.control.entry(id).lastOnBri || 255 };
  else if (requested.bri === undefined) wanted = { on: false, bri: 0 };
  else wanted = { on: requested.on, bri: requested.bri };
  if (requested !== 'on' && hasColourFields(requested))
    extra = parseColour(requested, id, light.capabilities);
  const { level, handed } = d.control.set(light, wanted, extra);
  await handed;
  return { _id: id, ...level, confirmed: sameLevel(d.control.entry(id).reported, level) };
}

/** GET /light and PUT /light/state: mounted under both `/api/site` and `/site`. */
export function mountLightDocumented(r: HearthRouter, d: SiteDeps): void {
  r.get('/:key/light', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.catalog.lights(siteOf(ctx)).map((l) => d.control.view(l));
  });

  // spec: PUT /light/state {_id, on, bri}; answers once the command is handed to the driver.
  r.put('/:key/light/state', d.access.guard('lights:write'), async (ctx) => {
    ctx.body = await putLightState(d, siteOf(ctx), jsonBody(ctx));
  });
}

/** The body of PUT /light/state checked and applied (the Koa route and the direct one). */
function putLightState(d: SiteDeps, siteId: string, raw: unknown): Promise<LightStateAnswer> {
  const body = asObject(raw);
  const id = str(body, '_id');
  const level = parseLevel(body);
  // Colour fields are read from the body as sent; a dimming command carries none and costs nothing more.
  return setLightState(d, siteId, id, hasColourFields(body) ? { ...body, ...level } : level);
}

/**
 * PUT `<prefix>/:key/light/state` answered ahead of Koa (the hub's busiest request): the same checks in
 * the same order as the Koa route (body, then site access, then fields) and the same answers. A request
 * whose body the direct reader does not take (chunked, compressed, not JSON, none) goes to the Koa route.
 */
export function lightStateDirect(
  prefix: '/api/site' | '/site',
  d: SiteDeps,
  errorBody: NonNullable<RouterOptions['errorBody']>,
): DirectRoute {
  return {
    method: 'PUT',
    path: `${prefix}/:key/light/state`,
    errorBody,
    accepts: acceptsJsonBody,
    async handle({ req, path, params }) {
      const raw = await readJsonBody(req);
      const key = params.key ?? '';
      // The site key resolves without a promise; anything else may be a token (and answers as the guard does).
      const access = d.access.bySiteKey(key) ?? (await d.access.check(key, 'lights:write', req, path));
      return putLightState(d, access.siteId, raw);
    },
  };
}

export function mountLightDesigned(r: HearthRouter, d: SiteDeps): void {
  r.post('/:key/light', d.access.guard('site:admin'), async (ctx) => {
    const fields = withDeviceFacts(siteOf(ctx), parseLightCreate(jsonBody(ctx)), d.drivers);
    const light = await d.catalog.addLight(siteOf(ctx), fields);
    await d.control.bound(light);
    ctx.status = 201;
    ctx.body = d.control.view(light);
  });

  r.put('/:key/light', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    const current = d.catalog.light(siteOf(ctx), str(body, '_id'));
    const fields = parseLightModify(body, current);
    const light = await d.catalog.modifyLight(siteOf(ctx), current._id, fields);
    d.control.retyped(light);
    if (light.vendor !== current.vendor || light.protocolid !== current.protocolid)
      await d.control.bound(light);
    ctx.body = d.control.view(light);
  });

  r.delete('/:key/light/:id', d.access.guard('site:admin'), async (ctx) => {
    const id = param(ctx, 'id');
    await d.catalog.deleteLight(siteOf(ctx), id);
    d.control.forget(id);
    ctx.status = 204;
  });
}
