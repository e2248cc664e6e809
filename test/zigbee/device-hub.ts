/**
 * A hub with the zigbee plugin against the simulated stick hosting vendor twins: pairs them through the
 * admin API and waits for their sensors in the site API (the device-table tests share it).
 */

import { sunIsUp } from '../../plugins/lighting/domain/conditions.ts';
import type { Outgoing, SimDevice, SimDeviceName } from '../../scripts/simulators/znp-coordinator/devices.ts';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';

export async function until<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface DeviceHub {
  sim: ZnpSimulator;
  h: MqttHub;
  /** The device sends a frame to the coordinator (a sleepy device's own report: no binding needed). */
  send(name: SimDeviceName, out: Outgoing | Outgoing[], needsBind?: boolean): void;
  /** The site's sensor for a device (by its protocol id), once it exists. */
  sensor(protocolid: string): Promise<Json>;
  /** Waits for the sensor's readings to match. */
  readings(protocolid: string, test: (r: Json) => boolean): Promise<Json>;
  /** Waits for a recent sensor event of the site. */
  event(sensorId: string, event: string): Promise<Json>;
  stop(): Promise<void>;
}

export async function startDeviceHub(
  twins: SimDevice[],
  zigbee: Record<string, unknown> = {},
): Promise<DeviceHub> {
  const sim = await startZnpSimulator({ blank: true });
  sim.coordinator.host(...twins);
  const h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home', ...zigbee } } }, [
    'lighting',
    'zigbee',
  ]);
  await until(async () =>
    ((await h.t.admin('GET', '/admin/zigbee/status')).body as Json).connected ? true : undefined,
  );
  await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 120 });
  const sensor = (protocolid: string) =>
    until(async () =>
      ((await h.site('GET', '/sensor')).body as Json[]).find((s) => s.zigbeeid === protocolid),
    );
  return {
    sim,
    h,
    send(name, out, needsBind = false) {
      for (const o of Array.isArray(out) ? out : [out]) {
        if (!sim.coordinator.fromDevice(name, () => o, needsBind)) throw new Error(`${name} could not send`);
      }
    },
    sensor,
    readings: (protocolid, test) =>
      until(async () => {
        const s = ((await h.site('GET', '/sensor')).body as Json[]).find((x) => x.zigbeeid === protocolid);
        return s?.readings && test(s.readings) ? s.readings : undefined;
      }),
    event: (sensorId, event) =>
      until(async () =>
        ((await h.site('GET', '/sensor/event')).body as Json[]).find(
          (e) => e._id === sensorId && e.event === event,
        ),
      ),
    async stop() {
      await h.stop();
      await sim.stop();
    },
  };
}

/** Joins devices (permit-join is open) and waits until the zigbee plugin has interviewed each. */
export async function pair(d: DeviceHub, names: SimDeviceName[]): Promise<void> {
  for (const n of names) if (!d.sim.coordinator.join(n)) throw new Error(`${n} did not join`);
  await until(async () => {
    const list = (await d.h.t.admin('GET', '/admin/zigbee/devices')).body as Json[];
    const ieees = names.map((n) => d.sim.coordinator.devices.get(n)?.ieee);
    return ieees.every((ieee) => list.some((x) => x.ieee === ieee && x.interviewed)) ? true : undefined;
  });
}

/** A place on the equator where the sun is up (or down) now and for the next two minutes. */
export function placeWhereSun(up: boolean): { latitude: number; longitude: number } {
  const now = Date.now();
  for (let longitude = -180; longitude < 180; longitude += 15) {
    if (sunIsUp(now, 0, longitude) === up && sunIsUp(now + 120_000, 0, longitude) === up)
      return { latitude: 0, longitude };
  }
  throw new Error('no such place');
}
