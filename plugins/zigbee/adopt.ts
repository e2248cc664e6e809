/** A device that joined becomes a light or sensor of the configured site, marked new until accepted. */
import type { Logger } from 'pino';
import type { DeviceInfo } from '../../drivers/lighting/index.ts';
import type { LightingExports } from '../lighting/types.ts';

const MAX_NAME = 200;

/** The sensor's type from what it reports: what the app shows it as. */
export function sensorType(d: DeviceInfo): string {
  const events = d.events ?? [];
  if (events.includes('motion')) return 'motion';
  if (events.includes('open')) return 'contact';
  if (events.length === 0 && d.readings?.length) return 'climate';
  return 'button';
}

export async function adopt(
  lighting: LightingExports,
  siteId: string,
  d: DeviceInfo,
  log: Logger,
  opts: { name?: string; isNew?: boolean } = {},
): Promise<void> {
  const name = (opts.name?.trim() || d.name?.trim() || d.protocolid).slice(0, MAX_NAME);
  const mark = { new: opts.isNew ?? true };
  try {
    if (d.kind === 'sensor')
      await lighting.createSensor(
        siteId,
        {
          name,
          vendor: 'zigbee',
          protocolid: d.protocolid,
          type: sensorType(d),
          events: d.events ?? [],
          ...(d.checkInSeconds ? { checkInSeconds: d.checkInSeconds } : {}),
        },
        mark,
      );
    else
      await lighting.createLight(
        siteId,
        {
          name,
          type: d.kind,
          vendor: 'zigbee',
          protocolid: d.protocolid,
          ...(d.capabilities ? { capabilities: d.capabilities } : {}),
          ...(d.plug ? { plug: true } : {}),
        },
        mark,
      );
    log.info(
      { device: d.protocolid, site: siteId },
      `zigbee device added as a ${d.kind === 'sensor' ? 'sensor' : 'light'}`,
    );
  } catch (err) {
    // 409: the site already has it (a device that joined again after a reset keeps its light).
    if ((err as { status?: number }).status !== 409)
      log.warn({ err, device: d.protocolid }, 'zigbee device not added to lighting');
  }
}
