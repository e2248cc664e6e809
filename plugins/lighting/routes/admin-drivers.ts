/**
 * Operator routes for the drivers (admin listener, already guarded by the admin key): every driver
 * instance of every site with its connection, and each one's device registry — what the driver knows
 * (`listDevices`) next to the light or sensor of the site that uses each device, if any.
 */
import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import type { Catalog } from '../catalog.ts';
import { withDeadline } from '../domain/deadline.ts';
import { connectionView, type DriverHost } from '../drivers-host.ts';
import type { SensorReadingsStore } from '../readings/readings.ts';
import type { Sites } from '../sites.ts';
import { param } from './context.ts';

export interface AdminDriverDeps {
  sites: Sites;
  drivers: DriverHost;
  catalog: Catalog;
  readings: SensorReadingsStore;
  /** Bound on a driver's `listDevices`. */
  timeoutMs: number;
}

export function mountAdminDrivers(r: HearthRouter, d: AdminDriverDeps): void {
  // Sensors of every site that need a look: a low battery, or silent longer than their kind allows.
  r.get('/admin/lighting/sensors/attention', (ctx) => {
    ctx.body = d.catalog.data.sensors.flatMap((s) => {
      const view = d.readings.view(s);
      if (!view.warnings?.length) return [];
      return [
        {
          _id: s._id,
          name: s.name,
          vendor: s.vendor,
          protocolid: s.protocolid,
          site: { siteid: s.siteid, name: d.sites.get(s.siteid)?.name ?? null },
          warnings: view.warnings,
          readings: view.readings,
        },
      ];
    });
  });

  r.get('/admin/lighting/drivers', (ctx) => {
    ctx.body = d.drivers.all().map((inst) => ({
      ...connectionView(inst),
      site: { siteid: inst.siteId, name: d.sites.get(inst.siteId)?.name ?? null },
    }));
  });

  r.get('/admin/lighting/drivers/:id/devices', async (ctx) => {
    const id = param(ctx, 'id');
    const inst = d.drivers.all().find((i) => i.id === id);
    if (!inst) throw new HttpError(404, 'not_found', `no driver with id ${id}`);
    // The driver's own list, fresh when it answers; the one it gave last when it cannot.
    const devices = await withDeadline(inst.driver.listDevices(), d.timeoutMs).catch(() => inst.devices);
    const used = [...d.catalog.lights(inst.siteId), ...d.catalog.sensors(inst.siteId)].filter(
      (x) => x.vendor === inst.type,
    );
    ctx.body = devices.map((dev) => {
      const user = used.find((x) => x.protocolid === dev.protocolid);
      return {
        protocolid: dev.protocolid,
        kind: dev.kind,
        name: dev.name ?? null,
        used: user ? { _id: user._id, name: user.name, new: user.new === true } : null,
      };
    });
  });
}
