/**
 * What tools outside the site API (Hearth's MQTT topics) read and drive: the site API's own views of lights
 * and sensors, and `PUT /light/state`'s code. Changes are followed on the bus (`lighting.light.state`,
 * `lighting.sensor.event`, `lighting.site.changed`, README "Sites and keys").
 */
import type { SiteDeps } from './routes/context.ts';
import { setLightState } from './routes/lights.ts';
import { sensorView } from './routes/sensors.ts';
import type { LightingExports } from './types.ts';

export function followExports(d: SiteDeps): Pick<LightingExports, 'lights' | 'sensors' | 'setLightState'> {
  return {
    lights: (siteId) => d.catalog.lights(siteId).map((l) => d.control.view(l)),
    sensors: (siteId) => d.catalog.sensors(siteId).map((s) => sensorView(s, d.readings)),
    setLightState: (siteId, lightId, level) => setLightState(d, siteId, lightId, level),
  };
}
