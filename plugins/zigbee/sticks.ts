/**
 * Serial devices under the by-id folder, as candidates for the coordinator stick: each with the kind its
 * name suggests (null: a serial device whose name is not a known stick's; it may still be one). The by-id
 * name stays the same when the stick moves to another USB port, so it is what gets stored, never the
 * /dev/ttyUSB* it points to.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { kindFromName } from '../../drivers/zigbee/probe.ts';
import type { StickKind } from '../../drivers/zigbee/radio.ts';

export interface StickCandidate {
  name: string;
  path: string;
  kind: StickKind | null;
}

/** Known sticks first, then the other serial devices, each group by name. Missing folder: none. */
export async function listSticks(dir: string): Promise<StickCandidate[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const all = names.map((name) => ({ name, path: join(dir, name), kind: kindFromName(name) }));
  const rank = (c: StickCandidate) => (c.kind ? 0 : 1);
  return all.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}
