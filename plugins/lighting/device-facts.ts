/**
 * What a new light takes from its device when its body leaves it open: whether it is a plug, as the
 * driver serving it knows the device (`DeviceInfo.plug`: Hue archetype, Zigbee device id, discovery data;
 * docs/lighting.md#plugs). Stored only as true, so a lamp keeps the spec's shape.
 */
import type { LightFields } from './domain/bodies.ts';
import type { DriverHost } from './drivers-host.ts';

export function withDeviceFacts(siteId: string, fields: LightFields, drivers: DriverHost): LightFields {
  const { plug, ...rest } = fields;
  const isPlug =
    plug ??
    drivers
      .driverFor({ _id: '', siteid: siteId, ...rest })
      ?.devices.some((d) => d.protocolid === fields.protocolid && d.plug === true) === true;
  return isPlug ? { ...rest, plug: true } : rest;
}
