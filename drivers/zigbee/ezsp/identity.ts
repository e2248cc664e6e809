/**
 * What an EmberZNet replacement needs beyond the network to stand in for another coordinator
 * (docs/zigbee.md#the-coordinators-ieee-address): the old coordinator's IEEE address, in the rewritable
 * restored-EUI64 token where the firmware has one, else as the custom EUI64 manufacturing token
 * (write-once on real silicon); and the devices' unique link keys in the key table.
 */
import type { DeviceLinkKey } from '../znp/nv-backup.ts';
import { FRAME_COUNTER_MARGIN } from '../znp/nv-backup.ts';
import { Writer } from './codec.ts';
import type { Ezsp } from './ezsp.ts';
import { restoredEui64Support, writeRestoredEui64 } from './restored-eui64.ts';
import { EmberStatus, readStatus, ValueId } from './types.ts';

/** `EzspMfgTokenId` of the custom EUI64: 8 bytes, least significant first; all 0xFF when never written. */
export const MFG_CUSTOM_EUI_64 = 0x0c;

/** The custom EUI64 token as an IEEE address, null when blank (erased flash). */
export async function readCustomEui64(ezsp: Ezsp): Promise<string | null> {
  const r = await ezsp.command('getMfgToken', Buffer.of(MFG_CUSTOM_EUI_64));
  const data = r.lv();
  if (data.length !== 8) throw new Error('the stick has no custom EUI64 token');
  if (data.every((b) => b === 0xff)) return null;
  return `0x${Buffer.from(data).reverse().toString('hex')}`;
}

/** Where the address went: the rewritable NVM3 token, or the write-once manufacturing token. */
export type EuiWay = 'restored-eui64-token' | 'custom-eui64-token';
export type EuiWrite =
  | { written: true; via: EuiWay; note?: string }
  | { written: false; reason: string; note?: string };

/**
 * The coordinator's address for the NCP's next boot: the restored-EUI64 token when the firmware has it
 * (rewritable, and read before the manufacturing token at boot), else the custom EUI64 token, which only
 * a blank token takes. `note` says why the write-once way was taken.
 */
export async function writeEui64(ezsp: Ezsp, ieee: string): Promise<EuiWrite> {
  const support = await restoredEui64Support(ezsp);
  let why = support.key === null ? support.why : '';
  if (support.key !== null) {
    const s = await writeRestoredEui64(ezsp, support.key, ieee);
    if (s === EmberStatus.SUCCESS) return { written: true, via: 'restored-eui64-token' };
    why = `the stick refused the restored-EUI64 token (status 0x${s.toString(16)})`;
  }
  const note = `no rewritable restored-EUI64 token: ${why}`;
  const w = await writeCustomEui64(ezsp, ieee);
  return { ...w, note };
}

/**
 * Writes `ieee` into the blank custom EUI64 token; the NCP uses it from its next reset on. A token that
 * already holds another address cannot be written again (the flash page would have to be erased), which
 * is said, not hidden.
 */
export async function writeCustomEui64(
  ezsp: Ezsp,
  ieee: string,
): Promise<{ written: true; via: 'custom-eui64-token' } | { written: false; reason: string }> {
  let held: string | null;
  try {
    held = await readCustomEui64(ezsp);
  } catch {
    return {
      written: false,
      reason:
        'the stick has no custom EUI64 token (RCP or unusual firmware); devices bound to the old coordinator report nothing until they are paired again',
    };
  }
  if (held === ieee) return { written: true, via: 'custom-eui64-token' };
  if (held !== null)
    return {
      written: false,
      reason: `the stick's custom EUI64 token already holds ${held} and can be written only once (erasing it takes a flash programmer); devices bound to the old coordinator report nothing until they are paired again`,
    };
  const eui = Buffer.from(ieee.replace(/^0x/, ''), 'hex').reverse();
  const s = readStatus(
    await ezsp.command('setMfgToken', new Writer().u8(MFG_CUSTOM_EUI_64).lv(eui).done()),
    ezsp.version,
  );
  if (s !== EmberStatus.SUCCESS)
    return {
      written: false,
      reason: `the stick refused the custom EUI64 token (status 0x${s.toString(16)}); devices bound to the old coordinator report nothing until they are paired again`,
    };
  return { written: true, via: 'custom-eui64-token' };
}

/**
 * Writes each device's unique link key into the key table: `importLinkKey` (index, EUI64, key; answers an
 * `sl_status`) from protocol 13, `addOrUpdateKeyTableEntry` (EUI64, link key flag, key; EmberStatus)
 * before. Neither takes a key's frame counters: EmberZNet keeps one outgoing APS counter for every key,
 * set here above the highest the backup saw, and a new entry's incoming counter starts at 0, which accepts
 * the device's next frame. Returns how many the stick took.
 */
export async function writeLinkKeys(ezsp: Ezsp, keys: DeviceLinkKey[]): Promise<number> {
  if (!keys.length) return 0;
  const highest = Math.max(...keys.map((k) => k.txCounter));
  await ezsp.command(
    'setValue',
    new Writer()
      .u8(ValueId.APS_FRAME_COUNTER)
      .lv(new Writer().u32(Math.min(0xffffffff, highest + FRAME_COUNTER_MARGIN)).done())
      .done(),
  );
  let written = 0;
  for (const [index, k] of keys.entries()) {
    const key = Buffer.from(k.key, 'hex');
    if (ezsp.version >= 13) {
      const r = await ezsp.command('importLinkKey', new Writer().u8(index).ieee(k.ieee).bytes(key).done());
      if (r.u32() === 0) written++;
    } else {
      const r = await ezsp.command(
        'addOrUpdateKeyTableEntry',
        new Writer().ieee(k.ieee).bool(true).bytes(key).done(),
      );
      if (readStatus(r, ezsp.version) === EmberStatus.SUCCESS) written++;
    }
  }
  return written;
}
