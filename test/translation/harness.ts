/** Boots a real hub with the translation plugin in front of fake upstreams on loopback. */
import * as deepl from 'deepl-node';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

// biome-ignore lint/suspicious/noExplicitAny: test responses are inspected field by field
export type Json = any;

export interface TranslationHub {
  t: TestHub;
  /** Creates a developer key through the admin API; returns its secret and id. */
  createKey(label?: string): Promise<{ secret: string; id: string }>;
  admin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  call(
    method: string,
    path: string,
    opts?: { key?: string; json?: unknown; form?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  /** The official client pointed at Hearth (no retries, so failures show at once). */
  translator(secret: string): deepl.Translator;
}

export async function startTranslation(
  opts: {
    engines?: unknown[];
    translation?: Record<string, unknown>;
    config?: Record<string, unknown>;
    plugins?: string[];
    extraPlugins?: PluginDefinition[];
    dataDir?: string;
  } = {},
): Promise<TranslationHub> {
  const t = await startTestHub({
    plugins: ['translation', ...(opts.plugins ?? [])],
    extraPlugins: opts.extraPlugins ?? [],
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    config: {
      ...opts.config,
      plugins: {
        translation: { engines: opts.engines ?? [], ...opts.translation },
        ...((opts.config?.plugins as object) ?? {}),
      },
    },
  });
  return wrap(t);
}

export function wrap(t: TestHub): TranslationHub {
  const call: TranslationHub['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key !== undefined) headers.authorization = `DeepL-Auth-Key ${o.key}`;
    let body: string | undefined;
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    } else if (o.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = o.form;
    }
    const res = await fetch(`${t.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, body: parsed as Json, headers: res.headers };
  };
  const admin: TranslationHub['admin'] = (method, path, body) =>
    call(method, path, { key: t.adminKey, ...(body === undefined ? {} : { json: body }) });
  return {
    t,
    call,
    admin,
    async createKey(label) {
      const res = await admin('POST', '/v2/admin/developer-keys', label === undefined ? {} : { label });
      if (res.status !== 200) throw new Error(`key creation failed: ${res.status}`);
      return { secret: res.body.key, id: res.body.key_id };
    },
    translator: (secret) =>
      new deepl.Translator(secret, { serverUrl: t.url, maxRetries: 0, minTimeout: 5000 }),
  };
}
