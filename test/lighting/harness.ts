/** Boots a real hub with the lighting plugin, a probe plugin that holds its exports, and a test driver. */
import type { PluginDefinition } from '../../core/plugin/types.ts';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { type TestDriverControl, testDriverType } from './test-driver.ts';

// biome-ignore lint/suspicious/noExplicitAny: test responses are inspected field by field
export type Json = any;

export interface LightingHarness {
  t: TestHub;
  lighting: LightingExports;
  siteid: string;
  sitekey: string;
  /** `<main url>/api/site/<key>` */
  api: string;
  driver: TestDriverControl;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: Json }>;
}

export function probePlugin(onStart: (l: LightingExports) => void): PluginDefinition {
  return {
    name: 'lighting-probe',
    version: '0.0.0',
    description: 'test probe',
    requires: ['lighting'],
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      onStart(ctx.use('lighting'));
      return { stop() {} };
    },
  };
}

export async function request(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body: parsed as Json, headers: res.headers };
}

/** Starts a hub with lighting, creates site "Test" with test driver `td` (type `test`). */
export async function startLighting(
  opts: { config?: Record<string, unknown>; dataDir?: string } = {},
): Promise<LightingHarness> {
  let lighting: LightingExports | undefined;
  const t = await startTestHub({
    plugins: ['lighting'],
    extraPlugins: [probePlugin((l) => (lighting = l))],
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
  });
  return attach(t, lighting!);
}

export async function attach(t: TestHub, lighting: LightingExports): Promise<LightingHarness> {
  const created = await t.admin('POST', '/admin/sites', { name: 'Test' });
  const { siteid, sitekey } = created.body as { siteid: string; sitekey: string };
  const { factory, instances } = testDriverType();
  lighting.registerDriverType('test', factory);
  await lighting.addDriver({ id: 'td', type: 'test', site: siteid });
  const api = `${t.url}/api/site/${sitekey}`;
  return {
    t,
    lighting,
    siteid,
    sitekey,
    api,
    driver: instances.get('td')!,
    call: (method, path, body, headers) => request(api + path, method, body, headers),
  };
}
