/** Finds a Zigbee stick (Z-Stack or EmberZNet) by its /dev/serial/by-id name when no path is configured. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { kindFromName } from './probe.ts';

export async function findStick(dir = '/dev/serial/by-id'): Promise<string | null> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const hit = names.sort().find((n) => kindFromName(n) !== null);
  return hit ? join(dir, hit) : null;
}
