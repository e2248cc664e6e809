/** A real hub with lighting + mqtt-devices, a site, and helpers for the site API and device credentials. */
import type { PluginDefinition } from '../../core/plugin/types.ts';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

// biome-ignore lint/suspicious/noExplicitAny: test responses are inspected field by field
export type Json = any;

export interface MqttHub {
  t: TestHub;
  lighting: LightingExports;
  siteid: string;
  sitekey: string;
  /** Site API: `<main>/api/site/<key><path>` */
  site(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** Creates a device credential; returns the password. */
  credential(username: string, topics?: string[], site?: string): Promise<string>;
  stop(): Promise<void>;
}

function probe(onStart: (l: LightingExports) => void): PluginDefinition {
  return {
    name: 'mqtt-test-probe',
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

export async function startMqttHub(
  config: Record<string, unknown> = {},
  plugins = ['lighting', 'mqtt-devices'],
): Promise<MqttHub> {
  let lighting: LightingExports | undefined;
  const t = await startTestHub({
    plugins,
    extraPlugins: [probe((l) => (lighting = l))],
    config: merge({ plugins: { lighting: { createHomeSite: true, reconcileMs: 2000 } } }, config),
  });
  const home = lighting!.sites.list().find((s) => s.name === 'Home');
  // The Home site's key is printed once at first start: take it from the console line.
  const line = t.printed.find((l) => l.includes('/site/')) ?? '';
  const sitekey = line.slice(line.lastIndexOf('/') + 1);
  const self: MqttHub = {
    t,
    lighting: lighting!,
    siteid: home!.siteid,
    sitekey,
    async site(method, path, body) {
      const res = await fetch(`${t.url}/api/site/${sitekey}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async credential(username, topics, site) {
      const res = await t.admin('POST', '/admin/mqtt/credentials', {
        username,
        site: site ?? home!.siteid,
        ...(topics ? { topics } : {}),
      });
      if (res.status !== 201) throw new Error(`credential: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body as { password: string }).password;
    },
    stop: () => t.stop(),
  };
  return self;
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      typeof v === 'object' && v !== null && !Array.isArray(v) && typeof prev === 'object' && prev !== null
        ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** Polls `check` until it returns a value; fails with `what` after `ms` (default 10 s, for loaded CI machines). */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
