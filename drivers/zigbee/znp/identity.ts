/**
 * What a Z-Stack replacement needs beyond the network to stand in for another coordinator
 * (docs/zigbee.md#the-coordinators-ieee-address): the old coordinator's IEEE address in the `EXTADDR` NV
 * item, and the devices' unique trust-centre link keys in the tables Z-Stack 3.x.0 keeps them in. Both take
 * effect after a reset, which the caller does.
 */
import type { DeviceLinkKey } from './nv-backup.ts';
import { FRAME_COUNTER_MARGIN } from './nv-backup.ts';
import type { Znp } from './znp.ts';

/** OSAL NV items (Z-Stack `ZCD_NV_*`). */
export const OsalId = {
  /** The IEEE address the stack uses; deleted, Z-Stack puts the chip's factory address back. */
  EXTADDR: 0x0001,
  APS_LINK_KEY_TABLE: 0x004c,
  TCLK_SEED: 0x0101,
} as const;
/** Extended items (system id 1), one sub id per table entry. */
export const ExId = { ADDRMGR: 0x0001, TCLK_TABLE: 0x0004, APS_KEY_DATA_TABLE: 0x0006 } as const;
const EX_SYSTEM_ZSTACK = 1;

/** TCLK table entry: key attributes "verified unique key" (the seed-derived key a Zigbee 3.0 device uses). */
export const KEY_VERIFIED = 0x02;
/** Address manager user bits: security (the entry has a link key). */
export const ADDRMGR_SECURITY = 0x02;
/** APS link key table: authentication state "authenticated". */
const AUTHENTICATED = 0x01;

/** An IEEE address as the stick stores it: least significant byte first. */
export const ieeeBytes = (ieee: string): Buffer => Buffer.from(ieee.replace(/^0x/, ''), 'hex').reverse();

/**
 * The key Z-Stack derives for a device from the trust centre's seed: the seed rotated left by `shift`
 * bytes, XOR the device's IEEE address (least significant byte first) repeated twice.
 */
export function seedKey(seed: Buffer, ieee: string, shift: number): Buffer {
  const rotated = Buffer.concat([seed.subarray(shift), seed.subarray(0, shift)]);
  const addr = ieeeBytes(ieee);
  return Buffer.from(rotated.map((b, i) => b ^ (addr[i % 8] as number)));
}

/** The rotation that derives `key` from `seed` for this device, or null when the key is not seed-derived. */
export function seedShiftOf(seed: Buffer, ieee: string, key: Buffer): number | null {
  for (let shift = 0; shift < 16; shift++) if (seedKey(seed, ieee, shift).equals(key)) return shift;
  return null;
}

async function osalWrite(znp: Znp, id: number, value: Buffer): Promise<void> {
  const r = await znp.request('sysOsalNvWrite', { id, offset: 0, value });
  if (r.status === 0) return;
  await znp.request('sysOsalNvItemInit', { id, len: value.length, value });
  await znp.call('sysOsalNvWrite', { id, offset: 0, value });
}

async function exWrite(znp: Znp, itemId: number, subId: number, value: Buffer): Promise<void> {
  const at = { sysId: EX_SYSTEM_ZSTACK, itemId, subId };
  const r = await znp.request('sysNvWrite', { ...at, offset: 0, value });
  if (r.status === 0) return;
  await znp.request('sysNvCreate', { ...at, len: value.length });
  await znp.call('sysNvWrite', { ...at, offset: 0, value });
}

/** Writes the coordinator IEEE address Z-Stack takes at its next start. */
export async function writeExtAddr(znp: Znp, ieee: string): Promise<void> {
  await osalWrite(znp, OsalId.EXTADDR, ieeeBytes(ieee));
}

/**
 * Structures as a SimpleLink (32-bit ARM) build lays them out, fields aligned to their size.
 *
 * Writes devices' unique link keys onto a Z-Stack 3.x.0 stick just formed for the backup's network (its
 * tables empty). A key derived from the trust-centre seed goes into the TCLK table as a seed rotation; any
 * other into the APS key data table, referred to by the APS link key table through an address manager
 * entry. The trust centre's outgoing counter for each key starts `FRAME_COUNTER_MARGIN` above the
 * backup's, as the network frame counter does. Returns how many keys were written.
 */
export async function writeLinkKeys(
  znp: Znp,
  keys: DeviceLinkKey[],
  seed: Buffer | null,
  nwkOf: (ieee: string) => number,
): Promise<number> {
  if (seed) await osalWrite(znp, OsalId.TCLK_SEED, seed);
  const links: Buffer[] = [];
  let hashed = 0;
  let unhashed = 0;
  for (const [index, k] of keys.entries()) {
    const key = Buffer.from(k.key, 'hex');
    const tx = Math.min(0xffffffff, k.txCounter + FRAME_COUNTER_MARGIN);
    const shift = seed ? seedShiftOf(seed, k.ieee, key) : null;
    // Address manager entry: user bits, (padding), network address, IEEE address.
    const ame = Buffer.alloc(12);
    ame[0] = ADDRMGR_SECURITY;
    ame.writeUInt16LE(nwkOf(k.ieee) & 0xffff, 2);
    ieeeBytes(k.ieee).copy(ame, 4);
    await exWrite(znp, ExId.ADDRMGR, index, ame);
    if (shift !== null) {
      // TCLK entry: tx u32, rx u32, IEEE, key attributes, key type, seed shift, (padding).
      const e = Buffer.alloc(20);
      e.writeUInt32LE(tx, 0);
      e.writeUInt32LE(k.rxCounter, 4);
      ieeeBytes(k.ieee).copy(e, 8);
      e[16] = KEY_VERIFIED;
      e[17] = 0;
      e[18] = shift;
      await exWrite(znp, ExId.TCLK_TABLE, hashed++, e);
    } else {
      // APS key data entry: key, tx u32, rx u32; the link key table points at it.
      const e = Buffer.alloc(24);
      key.copy(e, 0);
      e.writeUInt32LE(tx, 16);
      e.writeUInt32LE(k.rxCounter, 20);
      const at = unhashed++;
      await exWrite(znp, ExId.APS_KEY_DATA_TABLE, at, e);
      const link = Buffer.alloc(6);
      link.writeUInt16LE(index, 0);
      link.writeUInt16LE(at, 2);
      link[4] = AUTHENTICATED;
      links.push(link);
    }
  }
  if (links.length) {
    // A count, then the entries; the item keeps its size (the table's capacity is fixed at build time).
    const count = Buffer.alloc(2);
    count.writeUInt16LE(links.length, 0);
    const table = Buffer.concat([count, ...links]);
    const old = await znp.request('sysOsalNvRead', { id: OsalId.APS_LINK_KEY_TABLE, offset: 0 });
    const size = old.status === 0 ? (old.value as Buffer).length : table.length;
    if (table.length > size) throw new Error('the stick has no room for that many unique link keys');
    await osalWrite(
      znp,
      OsalId.APS_LINK_KEY_TABLE,
      Buffer.concat([table, Buffer.alloc(size - table.length)]),
    );
  }
  return keys.length;
}
