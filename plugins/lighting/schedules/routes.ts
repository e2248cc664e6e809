/** The schedule API (`/schedule`, Houm.io 2.0 style) and the site location it needs for sunrise and sunset. */
import type { HearthRouter } from '../../../core/sdk.ts';
import { asObject, str } from '../domain/check.ts';
import { jsonBody, param, type SiteDeps, siteOf } from '../routes/context.ts';
import { parseLocation, parseSchedule } from './bodies.ts';
import type { Schedules } from './schedules.ts';

export function mountSchedules(r: HearthRouter, d: SiteDeps, schedules: Schedules): void {
  r.get('/:key/schedule', d.access.guard('lights:read'), (ctx) => {
    ctx.body = schedules.list(siteOf(ctx)).map((s) => schedules.view(s));
  });

  r.post('/:key/schedule', d.access.guard('schedules:write'), async (ctx) => {
    const created = await schedules.add(siteOf(ctx), parseSchedule(jsonBody(ctx), true));
    ctx.status = 201;
    ctx.body = schedules.view(created);
  });

  r.put('/:key/schedule', d.access.guard('schedules:write'), async (ctx) => {
    const body = jsonBody(ctx);
    const id = str(asObject(body), '_id');
    schedules.get(siteOf(ctx), id);
    ctx.body = schedules.view(await schedules.modify(siteOf(ctx), id, parseSchedule(body, false)));
  });

  r.delete('/:key/schedule/:id', d.access.guard('schedules:write'), async (ctx) => {
    await schedules.remove(siteOf(ctx), param(ctx, 'id'));
    ctx.status = 204;
  });

  r.get('/:key/location', d.access.guard('lights:read'), (ctx) => {
    ctx.body = schedules.location(siteOf(ctx)) ?? { latitude: null, longitude: null };
  });

  r.put('/:key/location', d.access.guard('site:admin'), async (ctx) => {
    const place = parseLocation(jsonBody(ctx));
    await schedules.setLocation(siteOf(ctx), place);
    ctx.body = place;
  });
}
