/** Sensors, their event actions, and posting an event (docs/lighting.md#the-designed-methods: 1.0 noun, 2.0 eventSource CRUD). */
import type { HearthRouter } from '../../../core/sdk.ts';
import { parseActionAdd, parseSensorCreate, parseSensorModify } from '../domain/bodies.ts';
import { asObject, onlyFields, str } from '../domain/check.ts';
import { actionsFor, eventName } from '../domain/sensor-events.ts';
import type { SensorReadingsStore } from '../readings/readings.ts';
import type { SensorRecord, SensorView } from '../types.ts';
import { jsonBody, param, type SiteDeps, siteOf } from './context.ts';

/**
 * The protocol id goes out as `<vendor>id`, like a light's; a sensor heard from also shows its `readings`
 * and any `warnings` (docs/lighting.md#sensor-readings).
 */
export function sensorView(s: SensorRecord, readings?: SensorReadingsStore): SensorView {
  const { protocolid, new: isNew, ...rest } = s;
  return { ...rest, [`${s.vendor}id`]: protocolid, new: isNew === true, ...readings?.view(s) };
}

export function mountSensors(r: HearthRouter, d: SiteDeps): void {
  r.get('/:key/sensor', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.catalog.sensors(siteOf(ctx)).map((s) => sensorView(s, d.readings));
  });

  r.post('/:key/sensor', d.access.guard('site:admin'), async (ctx) => {
    const sensor = await d.sensorCatalog.addSensor(siteOf(ctx), parseSensorCreate(jsonBody(ctx)));
    ctx.status = 201;
    ctx.body = sensorView(sensor, d.readings);
  });

  r.put('/:key/sensor', d.access.guard('site:admin'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    const current = d.catalog.sensor(siteOf(ctx), str(body, '_id'));
    const fields = parseSensorModify(body, current);
    ctx.body = sensorView(await d.sensorCatalog.modifySensor(siteOf(ctx), current._id, fields), d.readings);
  });

  r.delete('/:key/sensor/:id', d.access.guard('site:admin'), async (ctx) => {
    await d.sensorCatalog.deleteSensor(siteOf(ctx), param(ctx, 'id'));
    ctx.status = 204;
  });

  r.post('/:key/sensor/action', d.access.guard('site:admin'), async (ctx) => {
    const { sensorId, event, action, when } = parseActionAdd(jsonBody(ctx));
    const sensor = await d.sensorCatalog.addAction(siteOf(ctx), sensorId, event, action, when);
    ctx.status = 201;
    ctx.body = sensorView(sensor, d.readings);
  });

  r.delete('/:key/sensor/:id/action/:actionid', d.access.guard('site:admin'), async (ctx) => {
    const sensor = await d.sensorCatalog.removeAction(siteOf(ctx), param(ctx, 'id'), param(ctx, 'actionid'));
    ctx.body = sensorView(sensor, d.readings);
  });

  // A sensor event from outside a driver (scripts, MQTT bridges, tests): runs the bound actions.
  r.post('/:key/sensor/event', d.access.guard('sensors:write'), async (ctx) => {
    const body = asObject(jsonBody(ctx));
    onlyFields(body, ['_id', 'event']);
    const sensor = d.catalog.sensor(siteOf(ctx), str(body, '_id'));
    const event = eventName(body);
    await d.actions.sensorEvent(siteOf(ctx), sensor, event);
    ctx.status = 202;
    ctx.body = { _id: sensor._id, event, actions: actionsFor(sensor, event).length };
  });

  r.get('/:key/sensor/event', d.access.guard('lights:read'), (ctx) => {
    ctx.body = d.actions.recent(siteOf(ctx));
  });
}
