/** Sites through the admin API and the `hearth site ...` commands; first run; keys never logged. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../core/cli/args.ts';
import type { CliIo, PluginDefinition } from '../../core/plugin/types.ts';
import { siteCommands } from '../../plugins/lighting/commands.ts';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { probePlugin, request } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let t: TestHub;
let lighting: LightingExports;
const created: string[] = [];
const busEvents: string[] = [];

beforeAll(async () => {
  const busProbe: PluginDefinition = {
    name: 'bus-probe',
    version: '0.0.0',
    description: 'records lighting bus events',
    requires: ['lighting'],
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      ctx.bus.on('lighting.site.created', (e) => void busEvents.push(`created ${e.siteId} ${e.name}`));
      ctx.bus.on('lighting.site.deleted', (e) => void busEvents.push(`deleted ${e.siteId} ${e.name}`));
      return { stop() {} };
    },
  };
  t = await startTestHub({
    plugins: ['lighting'],
    extraPlugins: [probePlugin((l) => (lighting = l)), busProbe],
  });
});
afterAll(() => t.stop());

/** Runs a `hearth site ...` command against the hub's real admin API. */
async function cli(line: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    admin: { request: (m, p, b) => t.admin(m, p, b) },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  };
  const words = line.split(' ');
  const cmd = siteCommands.find((c) => words.join(' ').startsWith(c.name));
  if (!cmd) throw new Error(`no command for ${line}`);
  const code = await runCommand(cmd, words.slice(cmd.name.split(' ').length), io);
  return { code, out, err };
}

describe('first start', () => {
  it('creates a site named Home and prints its web UI URL, which serves the page', async () => {
    const line = t.printed.find((l) => l.includes('/site/'));
    expect(line).toMatch(/web UI of site "Home": http:\/\/127\.0\.0\.1:\d+\/site\/[A-Za-z0-9_-]{24}$/);
    expect(lighting.sites.list().map((s) => s.name)).toEqual(['Home']);
    const page = await fetch(line!.split(': ').pop()!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Hearth lights</title>');
    // Printed for the operator, never written to the log.
    expect(JSON.stringify(t.logs)).not.toContain(line!.split('/site/').pop()!);
  });
});

describe('hearth site commands', () => {
  it('create --json prints {siteid, sitekey}; the key opens the site API and resolves to the id', async () => {
    const r = await cli('site create Summer house --json');
    expect(r.code).toBe(0);
    const { siteid, sitekey } = JSON.parse(r.out[0]!);
    created.push(siteid);
    expect(sitekey).toMatch(/^[A-Za-z0-9_-]{24}$/); // 144 random bits, URL-safe
    expect(lighting.sites.resolveKey(sitekey)).toBe(siteid);
    expect(lighting.sites.get(siteid)).toMatchObject({ name: 'Summer house' });
    expect((await request(`${t.url}/api/site/${sitekey}/light`, 'GET')).status).toBe(200);
  });

  it('create without --json prints id, key and URL; list shows names but never keys', async () => {
    const r = await cli('site create Office');
    expect(r.out.join('\n')).toMatch(/site id: {2}[0-9a-f]{24}\nsite key: \S+\nweb UI: {3}http/);
    const key = r.out[1]!.split(' ').pop()!;
    const list = await cli('site list');
    expect(list.out.some((l) => l.includes('Office'))).toBe(true);
    expect(list.out.join('\n')).not.toContain(key);
  });

  it('rename, rotate-key (old key dead at once) and delete', async () => {
    const { siteid, sitekey } = JSON.parse((await cli('site create Shed --json')).out[0]!);
    expect((await cli(`site rename ${siteid} Garden shed`)).out[0]).toContain('Garden shed');
    const rotated = await cli(`site rotate-key ${siteid} --json`);
    const next = JSON.parse(rotated.out[0]!).sitekey;
    expect(next).not.toBe(sitekey);
    expect((await request(`${t.url}/api/site/${sitekey}/light`, 'GET')).status).toBe(404);
    expect((await request(`${t.url}/api/site/${next}/light`, 'GET')).status).toBe(200);
    expect((await cli(`site delete ${siteid}`)).code).toBe(0);
    expect((await request(`${t.url}/api/site/${next}/light`, 'GET')).status).toBe(404);
    expect(lighting.sites.get(siteid)).toBeNull();
  });

  it('reports errors from the hub and usage mistakes with non-zero exit codes', async () => {
    const missing = await cli('site delete 000000000000000000000000');
    expect(missing.code).toBe(1);
    expect(missing.err[0]).toMatch(/no site with id/);
    expect((await cli('site create')).code).toBe(2);
    expect((await t.admin('POST', '/admin/sites', { name: '' })).status).toBe(400);
  });
});

describe('admin API', () => {
  it('is refused without the admin key', async () => {
    const res = await fetch(`${t.adminUrl}/admin/sites`);
    expect(res.status).toBe(401);
  });

  it('emits lighting.site.created/deleted on the bus', async () => {
    const res = await t.admin('POST', '/admin/sites', { name: 'Bus' });
    const { siteid } = res.body as { siteid: string };
    await t.admin('DELETE', `/admin/sites/${siteid}`);
    expect(busEvents.filter((e) => e.includes(siteid))).toEqual([
      `created ${siteid} Bus`,
      `deleted ${siteid} Bus`,
    ]);
  });
});

describe('secrets', () => {
  it('keeps site keys out of the log and out of the data files', async () => {
    const { sitekey } = JSON.parse((await cli('site create Secret --json')).out[0]!);
    await request(`${t.url}/api/site/${sitekey}/light`, 'GET');
    await request(`${t.url}/site/${sitekey}`, 'GET');
    await request(`${t.url}/api/site/${sitekey}/nothing-here`, 'GET');
    await request(`${t.url}/api/site/${sitekey}/light/state`, 'PUT', { _id: 'ghost', on: true, bri: 1 });
    // The WebSocket carries the key in its upgrade path as well.
    const ws = await SiteSocket.open(`${t.url}/api/site/${sitekey}/ws`);
    await ws.next('hello');
    ws.send('set', { _id: 'ghost', on: true, bri: 1 });
    await ws.next('error');
    await ws.close();
    const logs = JSON.stringify(t.logs);
    expect(logs).not.toContain(sitekey);
    const data = await readFile(path.join(t.dataDir, 'lighting.config.json'), 'utf8');
    expect(data).toContain('Secret');
    expect(data).not.toContain(sitekey);
  });
});
