import { randomUUID } from 'node:crypto';
import type { HearthRouter } from '../../../core/sdk.ts';
import { notFoundError, notSupported, unsupportedMediaType } from '../errors.ts';
import { ownValue } from '../own.ts';
import { queryAndBodyParams, requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import { apiRequest } from '../routes/api.ts';
import type { ApiRequest } from '../routes/client-auth.ts';
import type { Account } from '../translate-service.ts';
import { configuredRules, instruction, instructions, styleLanguage, styleName } from './params.ts';
import { type StyleRuleStore, styleRuleInfo } from './store.ts';

export interface StyleRuleDeps {
  authenticate(req: ApiRequest): Promise<Account>;
  styleRules: StyleRuleStore;
}

type Ctx = Parameters<Parameters<HearthRouter['get']>[1]>[0];

/** A JSON object body (the clients send style rules as JSON; a form cannot carry the nested rules). */
async function jsonBody(ctx: Ctx): Promise<Record<string, unknown>> {
  const params = await requestParams(ctx.req);
  if (params.kind !== 'json') throw unsupportedMediaType();
  return params.values;
}

const pageNumber = (p: ParamReader, name: string, fallback: number, min: number, max: number) => {
  const text = p.string(name);
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) throw notSupported(name);
  return Number(text);
};

/** `/v3/style_rules…`: lists, their configured rules and their custom instructions, per account. */
export function mountStyleRules(router: HearthRouter, deps: StyleRuleDeps): void {
  const who = async (ctx: Ctx) => (await deps.authenticate(apiRequest(ctx))).id;
  const store = deps.styleRules;

  router.get('/v3/style_rules', async (ctx) => {
    const account = await who(ctx);
    const p = new ParamReader(await queryAndBodyParams(ctx.req, ctx.querystring));
    const page = pageNumber(p, 'page', 0, 0, 1e9);
    const size = pageNumber(p, 'page_size', 10, 1, 25);
    const detailed = p.boolean('detailed') ?? false;
    const all = store.list(account);
    ctx.body = {
      style_rules: all.slice(page * size, page * size + size).map((l) => styleRuleInfo(l, detailed)),
    };
  });

  router.post('/v3/style_rules', async (ctx) => {
    const account = await who(ctx);
    const body = await jsonBody(ctx);
    const rules = ownValue(body, 'configured_rules');
    const created = await store.create(account, {
      name: styleName(ownValue(body, 'name')),
      language: styleLanguage(ownValue(body, 'language')),
      configured_rules: rules === undefined || rules === null ? {} : configuredRules(rules),
      custom_instructions: instructions(ownValue(body, 'custom_instructions')),
    });
    ctx.status = 201;
    ctx.body = styleRuleInfo(created);
  });

  router.get('/v3/style_rules/:id', async (ctx) => {
    ctx.body = styleRuleInfo(store.get(await who(ctx), ctx.params.id as string));
  });

  router.patch('/v3/style_rules/:id', async (ctx) => {
    const account = await who(ctx);
    const name = styleName(ownValue(await jsonBody(ctx), 'name'));
    ctx.body = styleRuleInfo(
      await store.change(account, ctx.params.id as string, (l) => {
        l.name = name;
      }),
    );
  });

  router.delete('/v3/style_rules/:id', async (ctx) => {
    await store.delete(await who(ctx), ctx.params.id as string);
    ctx.status = 204;
  });

  // Replaces the whole set of configured rules.
  router.put('/v3/style_rules/:id/configured_rules', async (ctx) => {
    const account = await who(ctx);
    const rules = configuredRules(await jsonBody(ctx));
    ctx.body = styleRuleInfo(
      await store.change(account, ctx.params.id as string, (l) => {
        l.configured_rules = rules;
      }),
    );
  });

  router.post('/v3/style_rules/:id/custom_instructions', async (ctx) => {
    const account = await who(ctx);
    const added = { id: randomUUID(), ...instruction(await jsonBody(ctx)) };
    await store.change(account, ctx.params.id as string, (l) => {
      l.custom_instructions.push(added);
    });
    ctx.status = 201;
    ctx.body = added;
  });

  const instructionOf = (ctx: Ctx, account: string) => {
    const list = store.get(account, ctx.params.id as string);
    const id = ctx.params.instruction as string;
    const found = list.custom_instructions.find((i) => i.id === id);
    if (!found) throw notFoundError(`Custom instruction '${id}' not found.`);
    return found;
  };

  router.get('/v3/style_rules/:id/custom_instructions/:instruction', async (ctx) => {
    ctx.body = instructionOf(ctx, await who(ctx));
  });

  router.put('/v3/style_rules/:id/custom_instructions/:instruction', async (ctx) => {
    const account = await who(ctx);
    const id = instructionOf(ctx, account).id;
    const updated = { id, ...instruction(await jsonBody(ctx)) };
    await store.change(account, ctx.params.id as string, (l) => {
      l.custom_instructions = l.custom_instructions.map((i) => (i.id === id ? updated : i));
    });
    ctx.body = updated;
  });

  router.delete('/v3/style_rules/:id/custom_instructions/:instruction', async (ctx) => {
    const account = await who(ctx);
    const id = instructionOf(ctx, account).id;
    await store.change(account, ctx.params.id as string, (l) => {
      l.custom_instructions = l.custom_instructions.filter((i) => i.id !== id);
    });
    ctx.status = 204;
  });
}
