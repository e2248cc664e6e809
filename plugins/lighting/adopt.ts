/**
 * Lights and sensors created by other plugins (the MQTT plugin adopting discovered devices): the body of
 * `POST /light` / `POST /sensor` goes through the same parser and catalog, so validation, the durable
 * commit and the `siteChanged` push are the site API's own. Only the `new` mark is theirs alone.
 */
import { HttpError } from '../../core/sdk.ts';
import { withDeviceFacts } from './device-facts.ts';
import { parseLightCreate, parseSensorCreate } from './domain/bodies.ts';
import type { SiteDeps } from './routes/context.ts';
import { sensorView } from './routes/sensors.ts';
import type { LightingExports } from './types.ts';

type Adoption = Pick<LightingExports, 'createLight' | 'createSensor' | 'acceptDevice'>;

export function adoptionExports(d: SiteDeps): Adoption {
  const requireSite = (siteId: string) => {
    if (!d.sites.get(siteId)) throw new HttpError(404, 'not_found', `no site with id ${siteId}`);
  };
  return {
    async createLight(siteId, light, opts = {}) {
      requireSite(siteId);
      const fields = withDeviceFacts(siteId, parseLightCreate({ ...light }), d.drivers);
      const record = await d.catalog.addLight(siteId, opts.new ? { ...fields, new: true } : fields);
      await d.control.bound(record);
      return d.control.view(record);
    },
    async createSensor(siteId, sensor, opts = {}) {
      requireSite(siteId);
      const fields = parseSensorCreate({ ...sensor });
      const record = await d.sensorCatalog.addSensor(siteId, opts.new ? { ...fields, new: true } : fields);
      return sensorView(record);
    },
    acceptDevice: (siteId, vendor, protocolid) => d.catalog.acceptDevice(siteId, vendor, protocolid),
  };
}
