/** Ids from outside (config, paths, bodies) named like Object.prototype's members are just ids. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
beforeAll(async () => {
  h = await startLighting();
});
afterAll(() => h.t.stop());

describe('outside ids like constructor and __proto__', () => {
  it('a driver type named constructor or toString is unknown, not Object.prototype’s member', async () => {
    for (const type of ['constructor', 'toString', '__proto__']) {
      await expect(h.lighting.addDriver({ id: `d-${type}`, type, site: h.siteid })).rejects.toThrow(
        `unknown driver type ${type}`,
      );
    }
  });

  it('site paths and bodies naming after Object.prototype members find nothing', async () => {
    for (const id of ['constructor', '__proto__', 'toString']) {
      expect((await h.call('PUT', '/light/state', { _id: id, on: true, bri: 1 })).status).toBe(404);
      expect((await h.call('DELETE', `/light/${id}`)).status).toBe(404);
      expect((await h.call('PUT', '/scene/apply', { _id: id })).status).toBe(404);
    }
  });
});
