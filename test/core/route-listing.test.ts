/** Hub.routes(): every route of every listener, as tools that probe them all (the torture fuzzer) need. */
import { afterAll, describe, expect, it } from 'vitest';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

const lister: PluginDefinition = {
  name: 'route-lister',
  version: '0.0.0',
  description: 'test plugin: routes on two listeners',
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    const site = ctx.http.router('main', { prefix: '/api/thing' });
    site.get('/:id', (k) => {
      k.body = {};
    });
    site.put('/:id', (k) => {
      k.body = {};
    });
    const admin = ctx.http.router('admin', { prefix: '/admin/things' });
    admin.delete('/:id', (k) => {
      k.status = 204;
    });
    return { stop() {} };
  },
};

let t: TestHub;
afterAll(() => t?.stop());

describe('Hub.routes()', () => {
  it('lists each listener’s routes with their owner, methods and full path (prefix included)', async () => {
    t = await startTestHub({ extraPlugins: [lister] });
    const routes = t.hub.routes();
    const mine = (listener: string) =>
      (routes[listener] ?? [])
        .filter((r) => r.owner === 'route-lister')
        .map((r) => `${r.methods.join(',')} ${r.path}`);
    expect(mine('main')).toEqual(['HEAD,GET /api/thing/:id', 'PUT /api/thing/:id']);
    expect(mine('admin')).toEqual(['DELETE /admin/things/:id']);
    // The core's own routes are there too, on both listeners.
    expect(routes.main?.some((r) => r.owner === 'core' && r.path === '/ready')).toBe(true);
    expect(routes.admin?.some((r) => r.owner === 'core' && r.path === '/admin/backup')).toBe(true);
  });
});
