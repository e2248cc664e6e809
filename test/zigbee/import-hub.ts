/** A hub with lighting and Zigbee on a simulated stick, with a backup imported through the real endpoint. */
import { expect } from 'vitest';
import { eventually, type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';
import type { AnySimulator } from './sim-helpers.ts';

/**
 * Starts a hub on `s` (pushed onto `hubs`, which the test file stops after each test), imports `backup`
 * through `POST /admin/zigbee/import`, and resolves with the Zigbee status once the stick carries it.
 */
export async function importThroughHub(
  s: AnySimulator,
  backup: unknown,
  hubs: MqttHub[],
): Promise<{ h: MqttHub; status: Json }> {
  const h = await startMqttHub({ plugins: { zigbee: { path: s.path, site: 'Home' } } }, [
    'lighting',
    'zigbee',
  ]);
  hubs.push(h);
  const r = await h.t.admin('POST', '/admin/zigbee/import', { backup });
  expect(r.status).toBe(200);
  const status = await eventually(
    async () => {
      const b = (await h.t.admin('GET', '/admin/zigbee/status')).body as Json;
      return b.connected && b.restore ? b : undefined;
    },
    'the stick carrying the imported network',
    20_000,
  );
  return { h, status };
}
