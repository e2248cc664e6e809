/**
 * A real hub with the lighting and matter plugins, a site with the lighting tests' test driver and a few
 * lights of each kind, and the bridge listening on [::1] (loopback only; mDNS limited to `lo`).
 */
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin, request } from '../lighting/harness.ts';
import { type TestDriverControl, testDriverType } from '../lighting/test-driver.ts';

// biome-ignore lint/suspicious/noExplicitAny: test responses are inspected field by field
export type Json = any;

export interface MatterHarness {
  t: TestHub;
  lighting: LightingExports;
  siteid: string;
  api: string;
  driver: () => TestDriverControl;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** The site's bridge object of `GET /admin/matter`. */
  bridge(): Promise<Json>;
}

export const matterConfig = (extra: Record<string, unknown> = {}) => ({
  plugins: {
    lighting: { createHomeSite: false },
    matter: { enabled: true, listen: '::1', mdnsInterface: 'lo', ...extra },
  },
});

const driverType = testDriverType();

/** Boots the hub (or reboots it on `dataDir`); on a fresh hub creates site "Flat" with test driver `td`. */
export async function startMatter(
  opts: { dataDir?: string; siteid?: string; sitekey?: string; config?: Record<string, unknown> } = {},
): Promise<MatterHarness & { sitekey: string }> {
  let lighting: LightingExports | undefined;
  const t = await startTestHub({
    plugins: ['lighting', 'matter'],
    extraPlugins: [
      probePlugin((l) => {
        lighting = l;
        l.registerDriverType('test', driverType.factory);
      }),
    ],
    config: matterConfig(opts.config),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
  });
  const l = lighting as LightingExports;
  let siteid = opts.siteid;
  let sitekey = opts.sitekey;
  if (!siteid || !sitekey) {
    const created = await t.admin('POST', '/admin/sites', { name: 'Flat' });
    ({ siteid, sitekey } = created.body as { siteid: string; sitekey: string });
  }
  await l.addDriver({ id: 'td', type: 'test', site: siteid });
  const api = `${t.url}/api/site/${sitekey}`;
  const h: MatterHarness & { sitekey: string } = {
    t,
    lighting: l,
    siteid,
    sitekey,
    api,
    driver: () => driverType.instances.get('td') as TestDriverControl,
    call: (method, path, body) => request(api + path, method, body),
    async bridge() {
      const r = await t.admin('GET', '/admin/matter');
      return (r.body as Json).bridges.find((b: Json) => b.site === siteid);
    },
  };
  await until(() => h.bridge(), 'the bridge of the site', 30_000);
  return h;
}

/** Waits until `check` passes (a bounded poll: the assertion names what never happened). */
export async function until<T>(check: () => T | Promise<T>, what: string, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false && v !== null) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
