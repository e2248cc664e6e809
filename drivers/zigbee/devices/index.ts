/**
 * The device table: one entry per vendor family (docs/zigbee.md#adding-a-device). A device is matched by
 * its Basic cluster model id (and manufacturer name where an entry asks for it); a device no entry covers
 * keeps the generic ZCL behaviour.
 */
import { aqara } from './aqara.ts';
import { ikea } from './ikea.ts';
import { philips } from './philips.ts';
import { sonoff } from './sonoff.ts';
import type { DeviceDefinition, Match } from './types.ts';

export const DEVICE_TABLE: readonly DeviceDefinition[] = [...aqara, ...ikea, ...philips, ...sonoff];

export function findDefinition(manufacturer: string | undefined, model: string | undefined): Match | null {
  if (!model) return null;
  const id = model.trim();
  for (const definition of DEVICE_TABLE) {
    if (definition.manufacturer && !definition.manufacturer.test(manufacturer ?? '')) continue;
    const m = definition.models.find((x) => x.zigbeeModel.includes(id));
    if (m) return { definition, model: m };
  }
  return null;
}

export type { DeviceDefinition, FrameContext, Match, ModelEntry, Output } from './types.ts';
