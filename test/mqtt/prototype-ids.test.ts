/**
 * Ids that are names of Object.prototype members (`constructor`, `__proto__`, `toString`, …) are ids like
 * any other: they find nothing that was not stored under them, and storing under them changes no prototype.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreRoot } from '../../core/store/root.ts';
import { type LevelsDoc, Registry, type RegistryDoc } from '../../plugins/mqtt-devices/registry.ts';
import { captureLog, tempDataDir } from '../core/fixtures/store-helpers.ts';
import { type MqttHub, startMqttHub } from './hub.ts';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('prototype names as ids over HTTP', () => {
  let h: MqttHub;
  beforeAll(async () => {
    h = await startMqttHub({ plugins: { 'mqtt-devices': { discoverySite: '' } } });
    await h.credential('kept-switch');
  });
  afterAll(() => h.stop());

  it('the devices page assets, devices and credentials answer 404 for them and nothing else changes', async () => {
    for (const name of NAMES) {
      const asset = await fetch(`${h.t.url}/mqtt-devices/ui/${encodeURIComponent(name)}`);
      expect(asset.status, `ui/${name}`).toBe(404);
      for (const method of ['PATCH', 'DELETE']) {
        const body = method === 'PATCH' ? { name: 'x' } : undefined;
        const res = await h.t.admin(method, `/admin/mqtt/devices/${encodeURIComponent(name)}`, body);
        expect(res.status, `${method} devices/${name}`).toBe(404);
      }
      const del = await h.t.admin('DELETE', `/admin/mqtt/credentials/${encodeURIComponent(name)}`);
      expect(del.status, `DELETE credentials/${name}`).toBe(404);
      const lightingAsset = await fetch(`${h.t.url}/lighting/ui/${encodeURIComponent(name)}`);
      expect(lightingAsset.status, `lighting/ui/${name}`).toBe(404);
    }
    const creds = (await h.t.admin('GET', '/admin/mqtt/credentials')).body as Array<{ username: string }>;
    expect(creds.map((c) => c.username)).toEqual(['kept-switch']);
  });
});

describe('the device registry', () => {
  it('finds no level for a prototype name, and stores one under __proto__ as a plain key', async () => {
    const { dir, cleanup } = await tempDataDir();
    const root = await createStoreRoot({ dataDir: dir, coalesceMs: 10, log: captureLog().log });
    try {
      const store = root.forOwner('mqtt-devices');
      const doc = await store.open<RegistryDoc>('registry', { devices: [] });
      const levels = await store.open<LevelsDoc>('levels', { levels: {} });
      const registry = new Registry(doc, levels);
      for (const name of NAMES) expect(registry.levelOf(name), name).toBeNull();
      await registry.register('site-1', {
        protocolid: '__proto__',
        profile: 'ha-json',
        kind: 'dimmable',
        address: 'x',
      } as never);
      registry.level('__proto__', { on: true, bri: 10 });
      expect(registry.levelOf('__proto__')).toEqual({ on: true, bri: 10 });
      expect(Object.getPrototypeOf(levels.data.levels)).toBeNull();
      expect(registry.levelOf('constructor')).toBeNull();
    } finally {
      await root.close();
      await cleanup();
    }
  });
});
