/** Light groups and group toggle (docs/lighting.md#the-designed-methods; groups are objects with member light ids). */
import type { HearthRouter } from '../../../core/sdk.ts';
import { parseGroupCreate } from '../domain/bodies.ts';
import { asObject, onlyFields, str, strArray } from '../domain/check.ts';
import { jsonBody, param, type SiteDeps, siteOf } from './context.ts';

export function mountGroups(r: HearthRouter, d: SiteDeps): void {
  r.get('/:key/light/group', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.catalog.groups(siteOf(ctx)).map((g) => d.actions.groupView(g));
  });

  r.put('/:key/light/group/toggle', d.access.guard('lights:write'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    const group = d.catalog.group(siteOf(ctx), str(body, '_id'));
    const result = await d.actions.toggleGroup(siteOf(ctx), group);
    const on = result.state.some((s) => s.on);
    ctx.body = { _id: group._id, name: group.name, lights: group.lights, on, ...result };
  });

  r.post('/:key/light/group', d.access.guard('site:admin'), async (ctx) => {
    const { name, lights } = parseGroupCreate(jsonBody(ctx));
    const group = await d.sceneGroups.addGroup(siteOf(ctx), name, lights);
    ctx.status = 201;
    ctx.body = d.actions.groupView(group);
  });

  r.put('/:key/light/group', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    onlyFields(body, ['_id', 'siteid', 'name', 'lights', 'on', 'bri']);
    const id = str(body, '_id');
    d.catalog.group(siteOf(ctx), id);
    const change: { name?: string; lights?: string[] } = {};
    if (body.name !== undefined) change.name = str(body, 'name');
    if (body.lights !== undefined) change.lights = strArray(body, 'lights');
    ctx.body = d.actions.groupView(await d.sceneGroups.modifyGroup(siteOf(ctx), id, change));
  });

  r.delete('/:key/light/group/:id', d.access.guard('site:admin'), async (ctx) => {
    await d.sceneGroups.deleteGroup(siteOf(ctx), param(ctx, 'id'));
    ctx.status = 204;
  });
}
