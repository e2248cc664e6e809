/**
 * What tools outside the site API (Hearth's MQTT topics) read and drive: the site API's own views of lights
 * and sensors, and `PUT /light/state`'s code. Changes are followed on the bus (`lighting.light.state`,
 * `lighting.sensor.event`, `lighting.site.changed`, README "Sites and keys").
 */
import type { SiteDeps } from './routes/context.ts';
import { setLightState } from './routes/lights.ts';
import { sensorView } from './routes/sensors.ts';
import type { LightingExports, LightRecord } from './types.ts';

const pinned = (device: object) =>
  'driver' in device && typeof device.driver === 'string' ? { driver: device.driver } : {};

export function followExports(
  d: SiteDeps,
): Pick<LightingExports, 'lights' | 'sensors' | 'groups' | 'setLightState' | 'reachable'> {
  return {
    groups: (siteId) => d.catalog.groups(siteId).map((g) => ({ ...g, lights: [...g.lights] })),
    lights: (siteId) => d.catalog.lights(siteId).map((l) => d.control.view(l)),
    sensors: (siteId) => d.catalog.sensors(siteId).map((s) => sensorView(s, d.readings)),
    setLightState: (siteId, lightId, level) => setLightState(d, siteId, lightId, level),
    reachable(siteId, id) {
      const device =
        d.catalog.lights(siteId).find((l) => l._id === id) ??
        d.catalog.sensors(siteId).find((s) => s._id === id);
      if (!device) return false;
      const inst = d.drivers.driverFor({
        siteid: siteId,
        vendor: device.vendor,
        ...pinned(device),
      } as LightRecord);
      return inst?.status.connected ?? false;
    },
  };
}
