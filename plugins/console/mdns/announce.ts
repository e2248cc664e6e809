/** What the hub announces: its console and its household app, named after the hub. */
import { createHash } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { lanIPv4 } from '../addresses.ts';
import { type AnnounceTarget, isMulticast } from './config.ts';
import type { AnnouncedService } from './records.ts';
import { type Responder, startResponder } from './responder.ts';

export const HUB_NAME = 'Hearth';

/**
 * Four hex digits that tell this hub from another on the same LAN (two Pis are both "raspberrypi" by
 * default): from the first hardware address of a network interface, else from the host name.
 */
export function shortId(): string {
  const mac = Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .find((a) => !a.internal && a.mac && a.mac !== '00:00:00:00:00:00')?.mac;
  return createHash('sha256')
    .update(mac ?? hostname())
    .digest('hex')
    .slice(0, 4)
    .toUpperCase();
}

export interface AnnounceOptions {
  target: AnnounceTarget;
  version: string;
  /** The ports of the admin listener (console) and the main listener (household app). */
  consolePort: number;
  householdPort: number;
  log: Logger;
  probeMs?: number;
}

export function announceHub(o: AnnounceOptions): Responder {
  const service = (base: string, role: 'console' | 'household'): AnnouncedService => ({
    instance: `${base} ${role}`,
    port: role === 'console' ? o.consolePort : o.householdPort,
    txt: { role, path: role === 'console' ? '/admin/ui/' : '/', version: o.version },
  });
  const id = shortId();
  const addresses = (): string[] =>
    !isMulticast(o.target.address)
      ? [o.target.address]
      : o.target.interface
        ? [o.target.interface]
        : lanIPv4();
  return startResponder({
    target: o.target,
    services: [service(HUB_NAME, 'console'), service(HUB_NAME, 'household')],
    rename: (s) => service(`${HUB_NAME} ${id}`, s.txt.role as 'console' | 'household'),
    host: `${hostname().split('.')[0]}.local`,
    addresses,
    log: o.log,
    ...(o.probeMs === undefined ? {} : { probeMs: o.probeMs }),
  });
}
