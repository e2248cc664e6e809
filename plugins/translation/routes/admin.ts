import type { IncomingMessage } from 'node:http';
import type { AdminKeyApi, HearthRouter } from '../../../core/sdk.ts';
import { type AccountInfo, customTagReport, usageReport } from '../accounting/analytics.ts';
import { apiKeyJson, DEFAULT_LABEL, type DeveloperKeys } from '../accounting/developer-keys.ts';
import type { UsageLedger } from '../accounting/usage-ledger.ts';
import { forbidden, notFoundError, notSpecified, notSupported } from '../errors.ts';
import { queryAndBodyParams, requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import { deeplAuthKey } from './client-auth.ts';

export interface AdminDeps {
  adminKey: AdminKeyApi;
  keys: DeveloperKeys;
  ledger: UsageLedger;
  who: AccountInfo;
  pageSize: number;
}

const LABEL_MAX = 1024;

/** A limit value: absent = unchanged, null = unlimited, 0 = blocked (docs/translation.md#admin-api). */
function limitValue(p: ParamReader, name: string): number | null | undefined {
  if (!p.has(name)) return undefined;
  if (p.isJson) {
    const raw = p.value(name);
    if (raw === null) return null;
    if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return raw;
    throw notSupported(name);
  }
  const text = p.string(name) ?? '';
  // Only an explicit `null` lifts a limit: an empty value (an unset variable in a script) is a mistake.
  if (text === 'null') return null;
  if (/^\d{1,15}$/.test(text)) return Number(text);
  throw notSupported(name);
}

function label(p: ParamReader, required: boolean): string | undefined {
  const value = p.value('label');
  if (value === undefined || value === null) {
    if (required) throw notSpecified('label');
    return undefined;
  }
  if (typeof value !== 'string' || value.length > LABEL_MAX) throw notSupported('label');
  return value;
}

/**
 * The spec's admin API (`/v2/admin/...`, on the main listener like DeepL's shared host). Its "Admin API
 * key" is Hearth's admin key, sent as `DeepL-Auth-Key`. Changes are durable before they are acknowledged.
 */
export function mountAdmin(router: HearthRouter, deps: AdminDeps): void {
  router.use('/v2/admin', async (ctx, next) => {
    const presented = deeplAuthKey(ctx.get('authorization'));
    if (!presented || !deps.adminKey.verify(presented)) throw forbidden();
    await next();
  });

  const keyOf = async (p: ParamReader) => {
    const id = p.string('key_id');
    if (!id) throw notSpecified('key_id');
    if (!deps.keys.get(id)) throw notFoundError('Developer key not found.');
    return id;
  };

  router.post('/v2/admin/developer-keys', async (ctx) => {
    const p = new ParamReader(await requestParams(ctx.req));
    const { key, secret } = await deps.keys.create(label(p, false) || DEFAULT_LABEL);
    ctx.body = apiKeyJson(key, secret);
  });

  router.get('/v2/admin/developer-keys', (ctx) => {
    ctx.body = deps.keys.list().map((k) => apiKeyJson(k));
  });

  router.put('/v2/admin/developer-keys/deactivate', async (ctx) => {
    const p = new ParamReader(await requestParams(ctx.req));
    const id = await keyOf(p);
    // spec: permanent; a deactivated key stays deactivated (its first deactivation time is kept).
    const key = await deps.keys.change(id, (k) => {
      k.deactivated ??= new Date().toISOString();
    });
    ctx.body = apiKeyJson(key!);
  });

  router.put('/v2/admin/developer-keys/label', async (ctx) => {
    const p = new ParamReader(await requestParams(ctx.req));
    const id = await keyOf(p);
    const name = label(p, true)!;
    const key = await deps.keys.change(id, (k) => {
      k.label = name;
    });
    ctx.body = apiKeyJson(key!);
  });

  router.put('/v2/admin/developer-keys/limits', async (ctx) => {
    const p = new ParamReader(await requestParams(ctx.req));
    const id = await keyOf(p);
    const characters = limitValue(p, 'characters');
    const speech = limitValue(p, 'speech_to_text_milliseconds');
    const key = await deps.keys.change(id, (k) => {
      if (characters !== undefined) k.limits.characters = characters;
      if (speech !== undefined) k.limits.speechToTextMilliseconds = speech;
    });
    ctx.body = apiKeyJson(key!);
  });

  // GET parameters are read from the query or a body, as on the client routes.
  const query = async (ctx: { req: IncomingMessage; querystring: string }) => {
    const p = new ParamReader(await queryAndBodyParams(ctx.req, ctx.querystring));
    return { get: (name: string) => p.string(name) ?? null };
  };

  router.get('/v2/admin/analytics', async (ctx) => {
    ctx.body = usageReport((kind) => deps.ledger.daysOf(kind), await query(ctx), deps.who);
  });

  router.get('/v2/admin/analytics/custom-tags', async (ctx) => {
    ctx.body = customTagReport((kind) => deps.ledger.daysOf(kind), await query(ctx), deps.pageSize);
  });
}
