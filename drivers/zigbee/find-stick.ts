/** Finds a Z-Stack stick by its /dev/serial/by-id name when no path is configured. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Name fragments of known CC2652/CC1352 sticks (Sonoff ZBDongle-P, SLZB-06, zig-a-zig-ah, TI LaunchPads). */
const KNOWN = [
  /sonoff_zigbee_3\.0_usb_dongle_plus/i,
  /slzb-06/i,
  /zig-a-zig-ah/i,
  /cc2652/i,
  /cc1352/i,
  /texas_instruments/i,
];

export async function findStick(dir = '/dev/serial/by-id'): Promise<string | null> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const hit = names.sort().find((n) => KNOWN.some((k) => k.test(n)));
  return hit ? join(dir, hit) : null;
}
