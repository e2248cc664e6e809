/** Scenes: the two documented calls and create/modify/delete (docs/lighting.md#the-designed-methods). */
import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { parseSceneCreate, parseSceneState } from '../domain/bodies.ts';
import { asObject, onlyFields, str } from '../domain/check.ts';
import type { SceneRecord } from '../types.ts';
import { jsonBody, param, type SiteDeps, siteOf } from './context.ts';

async function apply(ctx: Context, d: SiteDeps, scene: SceneRecord): Promise<void> {
  const result = await d.actions.applyScene(siteOf(ctx), scene);
  ctx.body = { _id: scene._id, name: scene.name, ...result };
}

export function mountSceneDocumented(r: HearthRouter, d: SiteDeps): void {
  r.get('/:key/scene', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.catalog.scenes(siteOf(ctx));
  });

  // spec: PUT /scene/apply {_id}
  r.put('/:key/scene/apply', d.access.guard('scenes:apply'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    await apply(ctx, d, d.catalog.scene(siteOf(ctx), str(body, '_id')));
  });
}

export function mountSceneDesigned(r: HearthRouter, d: SiteDeps): void {
  // Houm.io 2.0 form, kept as an alias (docs/lighting.md#where-the-site-api-comes-from).
  r.put('/:key/scene/:id/apply', d.access.guard('scenes:apply'), async (ctx) => {
    await apply(ctx, d, d.catalog.scene(siteOf(ctx), param(ctx, 'id')));
  });

  r.post('/:key/scene', d.access.guard('site:admin'), async (ctx) => {
    const { name, state } = parseSceneCreate(jsonBody(ctx));
    ctx.status = 201;
    ctx.body = await d.sceneGroups.addScene(siteOf(ctx), name, state);
  });

  r.put('/:key/scene', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    onlyFields(body, ['_id', 'siteid', 'name', 'state']);
    const id = str(body, '_id');
    d.catalog.scene(siteOf(ctx), id);
    const change: { name?: string; state?: SceneRecord['state'] } = {};
    if (body.name !== undefined) change.name = str(body, 'name');
    if (body.state !== undefined) change.state = parseSceneState(body);
    ctx.body = await d.sceneGroups.modifyScene(siteOf(ctx), id, change);
  });

  r.delete('/:key/scene/:id', d.access.guard('site:admin'), async (ctx) => {
    await d.sceneGroups.deleteScene(siteOf(ctx), param(ctx, 'id'));
    ctx.status = 204;
  });
}
