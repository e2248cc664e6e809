/**
 * Devices' link keys as a Z-Stack 3.x.0 stick keeps them, read back from the NV tables `readSecurity`
 * read (docs/zigbee.md#exporting-the-devices-link-keys), each mapped to its device by IEEE address:
 * - a TCLK table entry marked "verified" holds a key derived from the trust-centre seed (a rotation);
 * - an APS link key table entry points at an address manager entry (the device) and an APS key data
 *   entry (the key itself with its counters).
 * The same layouts `writeLinkKeys` writes (SimpleLink builds, fields aligned to their size).
 */
import { KEY_VERIFIED, seedKey } from './identity.ts';
import type { DeviceLinkKey, StickSecurity } from './nv-backup.ts';

/** An IEEE address stored least significant byte first, as `0x…`; null for an empty slot. */
function ieeeOf(b: Buffer): string | null {
  if (b.length !== 8 || b.every((x) => x === 0) || b.every((x) => x === 0xff)) return null;
  return `0x${Buffer.from(b).reverse().toString('hex')}`;
}

const buf = (hex: string) => Buffer.from(hex, 'hex');

/** TCLK entries: tx u32, rx u32, IEEE, key attributes, key type, seed shift, (padding): 20 bytes. */
function seedDerived(tclkTable: string[], seed: Buffer): DeviceLinkKey[] {
  const out: DeviceLinkKey[] = [];
  for (const hex of tclkTable) {
    const e = buf(hex);
    if (e.length < 19 || e[16] !== KEY_VERIFIED) continue;
    const ieee = ieeeOf(e.subarray(8, 16));
    if (!ieee) continue;
    out.push({
      ieee,
      key: seedKey(seed, ieee, (e[18] as number) & 0x0f).toString('hex'),
      txCounter: e.readUInt32LE(0),
      rxCounter: e.readUInt32LE(4),
    });
  }
  return out;
}

/**
 * APS link key table: a u16 count, then entries of address manager index u16, key data index u16
 * (the APS key data table's sub id), authentication state u8, (padding). Address manager entry: user
 * bits, (padding), network address u16, IEEE. APS key data entry: key, tx u32, rx u32.
 */
function unique(sec: StickSecurity): DeviceLinkKey[] {
  const table = sec.apsLinkKeyTable ? buf(sec.apsLinkKeyTable) : null;
  if (!table || table.length < 2) return [];
  const out: DeviceLinkKey[] = [];
  const count = table.readUInt16LE(0);
  for (let j = 0; j < count && 2 + 6 * j + 6 <= table.length; j++) {
    const ame = sec.addressManager?.[table.readUInt16LE(2 + 6 * j)];
    const data = sec.apsKeyData?.[table.readUInt16LE(4 + 6 * j)];
    if (!ame || !data) continue;
    const a = buf(ame);
    const d = buf(data);
    const ieee = a.length >= 12 ? ieeeOf(a.subarray(4, 12)) : null;
    if (!ieee || d.length < 24 || d.subarray(0, 16).every((x) => x === 0)) continue;
    out.push({
      ieee,
      key: d.subarray(0, 16).toString('hex'),
      txCounter: d.readUInt32LE(16),
      rxCounter: d.readUInt32LE(20),
    });
  }
  return out;
}

/**
 * Every device's link key the stick holds, counters as read. A device with a unique key in the APS
 * table uses that one (Z-Stack looks there before deriving one from the seed). Empty for Z-Stack 3.0.x,
 * whose tables Hearth does not read.
 */
export function zstackLinkKeys(sec: StickSecurity): DeviceLinkKey[] {
  if (sec.zstack !== '3.x.0') return [];
  const keys = unique(sec);
  const seed = sec.tclkSeed ? buf(sec.tclkSeed) : null;
  if (seed?.length === 16)
    for (const k of seedDerived(sec.tclkTable ?? [], seed))
      if (!keys.some((u) => u.ieee === k.ieee)) keys.push(k);
  return keys;
}
