/** Lights: the two documented calls (spec §Endpoints) and create/modify/delete (research §1.5, 2.0 paths). */
import type { HearthRouter } from '../../../core/http/types.ts';
import { parseLightCreate, parseLightModify } from '../domain/bodies.ts';
import { asObject, str } from '../domain/check.ts';
import { parseLevel, sameLevel } from '../domain/level.ts';
import { jsonBody, param, type SiteDeps, siteOf } from './context.ts';

/** GET /light and PUT /light/state: mounted under both `/api/site` and `/site`. */
export function mountLightDocumented(r: HearthRouter, d: SiteDeps): void {
  r.get('/:key/light', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.catalog.lights(siteOf(ctx)).map((l) => d.control.view(l));
  });

  // spec: PUT /light/state {_id, on, bri}; answers once the command is handed to the driver.
  r.put('/:key/light/state', d.access.guard('lights:write'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    const id = str(body, '_id');
    const requested = parseLevel(body);
    const light = d.catalog.light(siteOf(ctx), id);
    const { level, handed } = d.control.set(light, requested);
    await handed;
    ctx.body = { _id: id, ...level, confirmed: sameLevel(d.control.entry(id).reported, level) };
  });
}

export function mountLightDesigned(r: HearthRouter, d: SiteDeps): void {
  r.post('/:key/light', d.access.guard('site:admin'), async (ctx) => {
    const fields = parseLightCreate(jsonBody(ctx));
    const light = await d.catalog.addLight(siteOf(ctx), fields);
    ctx.status = 201;
    ctx.body = d.control.view(light);
  });

  r.put('/:key/light', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    const current = d.catalog.light(siteOf(ctx), str(body, '_id'));
    const fields = parseLightModify(body, current);
    const light = await d.catalog.modifyLight(siteOf(ctx), current._id, fields);
    d.control.retyped(light);
    ctx.body = d.control.view(light);
  });

  r.delete('/:key/light/:id', d.access.guard('site:admin'), async (ctx) => {
    const id = param(ctx, 'id');
    await d.catalog.deleteLight(siteOf(ctx), id);
    d.control.forget(id);
    ctx.status = 204;
  });
}
