/** Site data, driver connections and the next radio sender id (docs/lighting.md#the-designed-methods). */

import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import { VENDOR } from '../domain/bodies.ts';
import { asObject, invalid, onlyFields, str } from '../domain/check.ts';
import { withDeadline } from '../domain/deadline.ts';
import { nextSubdef, parseSubdef } from '../domain/subdef.ts';
import { connectionView } from '../drivers-host.ts';
import { siteName } from '../sites.ts';
import { jsonBody, type SiteDeps, siteOf } from './context.ts';
import { sensorView } from './sensors.ts';

export function siteData(d: SiteDeps, siteId: string) {
  const site = d.sites.get(siteId)!;
  return {
    siteid: site.siteid,
    name: site.name,
    lights: d.catalog.lights(siteId).map((l) => d.control.view(l)),
    scenes: d.catalog.scenes(siteId),
    groups: d.catalog.groups(siteId).map((g) => d.actions.groupView(g)),
    sensors: d.catalog.sensors(siteId).map((s) => sensorView(s, d.readings)),
  };
}

export function mountSite(r: HearthRouter, d: SiteDeps): void {
  r.get('/:key', d.access.guard('lights:read'), (ctx) => {
    ctx.body = siteData(d, siteOf(ctx));
  });

  // 2.0: "Update the site. Currently supports only changing the name."
  r.put('/:key', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    onlyFields(body, ['siteid', 'name', 'lights', 'scenes', 'groups', 'sensors']);
    await d.sites.rename(siteOf(ctx), siteName(body.name));
    d.catalog.onChange(siteOf(ctx));
    ctx.body = siteData(d, siteOf(ctx));
  });

  r.get('/:key/connection', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.drivers.forSite(siteOf(ctx)).map(connectionView);
  });

  // Pairing: opens the driver's discovery / permit-join for a while and answers with what it found.
  r.post('/:key/connection/discover', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    onlyFields(body, ['_id', 'duration']);
    const id = str(body, '_id');
    const duration = body.duration ?? 30;
    if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > 254) {
      throw invalid('duration must be an integer number of seconds from 1 to 254');
    }
    const inst = d.drivers.forSite(siteOf(ctx)).find((i) => i.id === id);
    if (!inst) throw new HttpError(404, 'not_found', `no driver with _id ${id} on this site`);
    const durationMs = duration * 1000;
    let devices: Awaited<ReturnType<typeof inst.driver.discover>>;
    try {
      devices = await withDeadline(inst.driver.discover({ durationMs }), durationMs + d.commandTimeoutMs);
    } catch (err) {
      // The driver's own error may name hosts or ports: it goes to the log, the client gets the outcome.
      d.log.warn({ err, driver: inst.id }, 'pairing failed');
      throw new HttpError(502, 'driver_error', `the ${inst.type} driver ${inst.id} could not pair`);
    }
    ctx.body = { _id: inst.id, vendor: inst.type, devices };
  });

  r.get('/:key/subdef/next', d.access.guard('site:admin'), (ctx) => {
    const vendor = ctx.query.vendor ?? 'enocean';
    if (typeof vendor !== 'string' || !VENDOR.test(vendor))
      throw invalid('vendor must be one lower-case vendor name (e.g. enocean)');
    const siteId = siteOf(ctx);
    const inst = d.drivers.forSite(siteId).find((i) => i.type === vendor);
    const base = inst?.driver.subdefBase?.() ?? d.subdefBase;
    if (parseSubdef(base) === null)
      throw invalid(`the ${vendor} sender id base ${base} is not four hex byte pairs`);
    const used = [...d.catalog.lights(siteId), ...d.catalog.sensors(siteId)]
      .filter((x) => x.vendor === vendor)
      .map((x) => ('subdef' in x ? x.subdef : null));
    const subdef = nextSubdef(base, used);
    if (!subdef)
      throw new HttpError(409, 'subdef_exhausted', `all 128 ${vendor} sender ids from ${base} are in use`);
    ctx.body = { vendor, subdef };
  });
}
