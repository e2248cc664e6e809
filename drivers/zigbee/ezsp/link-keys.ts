/**
 * Reading an EmberZNet stick's keys back for an export (docs/zigbee.md#exporting-the-devices-link-keys):
 * the key table (devices' unique trust-centre link keys with their APS frame counters), the network key's
 * frame counter on stacks older than protocol 13, and the trust-centre link key a stick using hashed link
 * keys derives every device's key from (what zigpy exports as `stack_specific.ezsp.hashed_tclk`).
 */
import type { DeviceLinkKey } from '../znp/nv-backup.ts';
import { type Reader, Writer } from './codec.ts';
import type { Ezsp } from './ezsp.ts';
import { ConfigId, EmberStatus, readStatus } from './types.ts';

/** `EmberKeyType` (getKey, before protocol 13). */
export const EmberKeyType = { TRUST_CENTER_LINK_KEY: 0x01, CURRENT_NETWORK_KEY: 0x03 } as const;
/** `sl_zb_sec_man_key_type_t` (exportKey, protocol 13 and later). */
export const SecManKeyType = { NETWORK: 0x01, TC_LINK: 0x02 } as const;
/** EmberCurrentSecurityBitmask: the trust centre derives each device's key from its own link key. */
export const TRUST_CENTER_USES_HASHED_LINK_KEY = 0x0084;
const SL_OK = 0;

/** An `EmberKeyStruct`: bitmask u16, type u8, key, outgoing u32, incoming u32, sequence u8, partner EUI64. */
export interface KeyStruct {
  key: Buffer;
  outgoing: number;
  incoming: number;
  partner: string;
}

function readKeyStruct(r: Reader): KeyStruct {
  r.u16();
  r.u8();
  const key = r.bytes(16);
  const outgoing = r.u32();
  const incoming = r.u32();
  r.u8();
  return { key, outgoing, incoming, partner: r.ieee() };
}

/**
 * `sl_zb_sec_man_context_t` as protocol 13 and later carry it: core key type u8, key index u8, derived
 * key type u16, EUI64, multi-network index u8, flags u8, PSA algorithm permission u32 (18 bytes).
 */
const context = (keyType: number) =>
  new Writer().u8(keyType).u8(0).u16(0).ieee('0x0000000000000000').u8(0).u8(0).u32(0).done();

/** Skips a context, giving its EUI64. */
function readContext(r: Reader): string {
  r.u8();
  r.u8();
  r.u16();
  const eui = r.ieee();
  r.u8();
  r.u8();
  r.u32();
  return eui;
}

/** `sl_zb_sec_man_aps_key_metadata_t`: bitmask u16, outgoing u32, incoming u32, time to live u16. */
function readMetadata(r: Reader): { outgoing: number; incoming: number } {
  r.u16();
  const outgoing = r.u32();
  const incoming = r.u32();
  r.u16();
  return { outgoing, incoming };
}

const blankEui = (ieee: string) => /^0x(0{16}|f{16})$/.test(ieee);

/** The key table's size as the stick was configured (KEY_TABLE_SIZE); 0 when it will not say. */
export async function keyTableSize(ezsp: Ezsp): Promise<number> {
  const r = await ezsp.command('getConfigurationValue', Buffer.of(ConfigId.KEY_TABLE_SIZE));
  return readStatus(r, ezsp.version) === EmberStatus.SUCCESS ? r.u16() : 0;
}

/** One key table entry, or null for an empty one. */
async function keyTableEntry(ezsp: Ezsp, index: number): Promise<DeviceLinkKey | null> {
  const v = ezsp.version;
  let ieee: string;
  let key: Buffer;
  let counters: { outgoing: number; incoming: number };
  if (v >= 14) {
    // Protocol 14: the status first, then the context carrying the partner's EUI64.
    const r = await ezsp.command('exportLinkKeyByIndex', Buffer.of(index));
    if (r.u32() !== SL_OK) return null;
    ieee = readContext(r);
    key = r.bytes(16);
    counters = readMetadata(r);
  } else if (v === 13) {
    const r = await ezsp.command('exportLinkKeyByIndex', Buffer.of(index));
    ieee = r.ieee();
    key = r.bytes(16);
    counters = readMetadata(r);
    if (r.u32() !== SL_OK) return null;
  } else {
    // Before 13: getKeyTableEntry; an erased entry answers TABLE_ENTRY_ERASED.
    const r = await ezsp.command('getKeyTableEntry', Buffer.of(index));
    if (readStatus(r, v) !== EmberStatus.SUCCESS) return null;
    const k = readKeyStruct(r);
    ieee = k.partner;
    key = k.key;
    counters = k;
  }
  if (blankEui(ieee) || key.every((b) => b === 0)) return null;
  return {
    ieee,
    key: key.toString('hex'),
    txCounter: counters.outgoing,
    rxCounter: counters.incoming,
  };
}

/** Every device key in the key table with its counters as the stick reports them (exported as read). */
export async function readLinkKeys(ezsp: Ezsp): Promise<DeviceLinkKey[]> {
  const size = await keyTableSize(ezsp);
  const out: DeviceLinkKey[] = [];
  for (let index = 0; index < size; index++) {
    const k = await keyTableEntry(ezsp, index);
    if (k && !out.some((o) => o.ieee === k.ieee)) out.push(k);
  }
  return out;
}

/** The outgoing NWK frame counter before protocol 13 (getKey of the current network key). */
export async function readNetworkFrameCounter(ezsp: Ezsp): Promise<number | undefined> {
  const r = await ezsp.command('getKey', Buffer.of(EmberKeyType.CURRENT_NETWORK_KEY));
  if (readStatus(r, ezsp.version) !== EmberStatus.SUCCESS) return undefined;
  return readKeyStruct(r).outgoing;
}

/**
 * The trust-centre link key (hex) when the stick derives devices' keys from it (hashed link keys); null
 * when it does not. getKey before protocol 13, exportKey from 13 (status after the key on 13, first on 14+).
 */
export async function readHashedTclk(ezsp: Ezsp): Promise<string | null> {
  const v = ezsp.version;
  const s = await ezsp.command('getCurrentSecurityState');
  if (readStatus(s, v) !== EmberStatus.SUCCESS) return null;
  if ((s.u16() & TRUST_CENTER_USES_HASHED_LINK_KEY) !== TRUST_CENTER_USES_HASHED_LINK_KEY) return null;
  let key: Buffer;
  if (v < 13) {
    const r = await ezsp.command('getKey', Buffer.of(EmberKeyType.TRUST_CENTER_LINK_KEY));
    if (readStatus(r, v) !== EmberStatus.SUCCESS) return null;
    key = readKeyStruct(r).key;
  } else {
    const r = await ezsp.command('exportKey', context(SecManKeyType.TC_LINK));
    if (v >= 14) {
      if (r.u32() !== SL_OK) return null;
      key = r.bytes(16);
    } else {
      key = r.bytes(16);
      if (r.u32() !== SL_OK) return null;
    }
  }
  return key.toString('hex');
}
